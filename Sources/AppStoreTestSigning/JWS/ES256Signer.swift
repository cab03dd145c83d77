import Crypto
import Foundation

/// Signs compact JWS with ES256 (ECDSA P-256 with SHA-256, signature as raw `r‖s`).
///
/// The one signing primitive behind the test certificate authority, App Store Server API
/// tokens and offer signatures: it takes the header fields and the payload bytes as given and
/// leaves their meaning to the caller.
public struct ES256Signer: Sendable {
    /// The signing key.
    public let privateKey: P256.Signing.PrivateKey

    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// Signs `payload` (the JSON bytes of the claims) under `header`.
    public func sign(payload: Data, header: JWSProtectedHeader) throws -> String {
        let signingInput = try Base64URL.encode(Self.headerEncoder.encode(header)) + "." + Base64URL.encode(payload)
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Encodes `claims` as JSON and signs them under `header`.
    public func sign(_ claims: some Encodable, header: JWSProtectedHeader) throws -> String {
        try sign(payload: Self.payloadEncoder.encode(claims), header: header)
    }

    static let headerEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    static let payloadEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()
}

/// The protected header of a JWS: `alg`, and the optional `typ`, `kid` and `x5c`.
public struct JWSProtectedHeader: Codable, Hashable, Sendable {
    /// `alg`; ES256 for everything Apple accepts or signs.
    public var algorithm: String
    /// `typ`, usually `JWT`.
    public var type: String?
    /// `kid`: the App Store Connect key id for API tokens and offer signatures.
    public var keyId: String?
    /// `x5c`: standard-base64 DER certificates, leaf first.
    public var certificateChain: [String]?

    public init(algorithm: String = "ES256", type: String? = nil, keyId: String? = nil, certificateChain: [String]? = nil) {
        self.algorithm = algorithm
        self.type = type
        self.keyId = keyId
        self.certificateChain = certificateChain
    }

    enum CodingKeys: String, CodingKey {
        case algorithm = "alg"
        case type = "typ"
        case keyId = "kid"
        case certificateChain = "x5c"
    }
}

/// Base64url without padding (RFC 7515 §2).
enum Base64URL {
    static func encode(_ bytes: some DataProtocol) -> String {
        // One pass over the base64 bytes: `+` → `-`, `/` → `_`, padding dropped.
        var utf8 = Array(Data(bytes).base64EncodedData())
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        for index in utf8.indices {
            if utf8[index] == UInt8(ascii: "+") {
                utf8[index] = UInt8(ascii: "-")
            } else if utf8[index] == UInt8(ascii: "/") {
                utf8[index] = UInt8(ascii: "_")
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}
