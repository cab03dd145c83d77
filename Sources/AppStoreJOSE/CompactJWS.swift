import Crypto
import Foundation

/// A compact JWS (RFC 7515 §7.1) split into its three parts, each decoded with the strict
/// ``Base64URL`` rules. It says nothing about trust: check the signature with
/// ``isSignedES256(by:)`` and the header's fields yourself. (Apple's signed data goes through
/// `SignedDataVerifier`, which parses in place with ``JWSSegments`` and the same codec.)
public struct CompactJWS: Sendable, Hashable {
    /// The protected header's JSON bytes.
    public var header: [UInt8]
    /// The payload's bytes (JSON claims for everything Apple signs).
    public var payload: [UInt8]
    /// The signature's bytes (`r‖s` for ES256).
    public var signature: [UInt8]
    /// `BASE64URL(header) "." BASE64URL(payload)`: what the signature covers.
    public var signingInput: String

    /// Splits and decodes `text`; `nil` unless it is exactly three valid base64url segments.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = "\(parts[0]).\(parts[1])"
    }

    /// The header's standard fields, or `nil` when it is not a JSON object of that shape.
    public var decodedHeader: JWSHeader? {
        try? JSONDecoder().decode(JWSHeader.self, from: Data(header))
    }

    /// Whether the signature is a valid ES256 signature of ``signingInput`` by `key`.
    public func isSignedES256(by key: P256.Signing.PublicKey) -> Bool {
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return key.isValidSignature(signature, for: Data(signingInput.utf8))
    }
}
