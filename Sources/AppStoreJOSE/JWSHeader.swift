import Foundation

/// The protected header of a JWS: `alg`, and the optional `typ`, `kid` and `x5c`.
public struct JWSHeader: Codable, Hashable, Sendable {
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
