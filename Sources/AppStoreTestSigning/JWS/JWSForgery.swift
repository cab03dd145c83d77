import Crypto
import Foundation

/// Ways to spoil a JWS the test authority signs, to prove a verifier refuses it.
///
/// The default value spoils nothing. Chain-level forgeries (missing marker extensions, expired
/// or not-yet-valid certificates, a foreign root) come from how the authority itself is
/// generated; see ``TestCertificateAuthority/generate(notBefore:notAfter:leafNotBefore:leafNotAfter:markers:name:ocspResponderURI:)``
/// and ``TestCertificateAuthority/reissuingLeaf(notBefore:notAfter:marker:name:ocspResponderURI:)``.
public struct JWSForgery: Sendable {
    /// The header's `alg`; `none` also leaves the signature empty.
    public var algorithm: String

    /// Replaces the `x5c` certificates (DER, leaf first), e.g. two or four of them.
    public var certificateChain: [Data]?

    /// Leaves `x5c` out of the header.
    public var omitsCertificateChain: Bool

    /// Signs with this key instead of the leaf's.
    public var signingKey: P256.Signing.PrivateKey?

    /// After signing, swaps the payload for these bytes (the signature no longer matches).
    public var tamperedPayload: Data?

    public init(
        algorithm: String = "ES256",
        certificateChain: [Data]? = nil,
        omitsCertificateChain: Bool = false,
        signingKey: P256.Signing.PrivateKey? = nil,
        tamperedPayload: Data? = nil
    ) {
        self.algorithm = algorithm
        self.certificateChain = certificateChain
        self.omitsCertificateChain = omitsCertificateChain
        self.signingKey = signingKey
        self.tamperedPayload = tamperedPayload
    }

    /// An honest signature.
    public static let none = JWSForgery()
}
