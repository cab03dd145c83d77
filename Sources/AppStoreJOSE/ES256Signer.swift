import Crypto
import Foundation

/// Signs compact JWS with ES256 (ECDSA P-256 with SHA-256, signature as raw `r‖s`).
///
/// The one signing primitive behind the test certificate authority, App Store Server API
/// tokens and offer signatures: it takes the header fields and the payload bytes as given and
/// leaves their meaning to the caller. Header and claims are JSON with sorted keys.
public struct ES256Signer: Sendable {
    /// The signing key.
    public let privateKey: P256.Signing.PrivateKey

    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// Signs `payload` (the JSON bytes of the claims) under `header`.
    public func sign(payload: Data, header: JWSHeader) throws -> String {
        let signingInput = try Base64URL.encode(Self.headerEncoder.encode(header)) + "." + Base64URL.encode(payload)
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Encodes `claims` as JSON and signs them under `header`.
    public func sign(_ claims: some Encodable, header: JWSHeader) throws -> String {
        try sign(payload: Self.payloadEncoder.encode(claims), header: header)
    }

    static let headerEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// The encoder of claims: sorted keys, slashes as they are.
    public static let payloadEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()
}
