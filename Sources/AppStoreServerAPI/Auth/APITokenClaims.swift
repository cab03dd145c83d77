import Foundation

/// The claims of an App Store Server API bearer token.
public struct APITokenClaims: Codable, Hashable, Sendable {
    /// The issuer id of the team's App Store Connect keys (`iss`).
    public var issuerId: String
    /// Issued at, in whole seconds since 1970 (`iat`).
    public var issuedAt: Int64
    /// Expiry, in whole seconds since 1970 (`exp`); Apple rejects tokens living longer than an hour.
    public var expiresAt: Int64
    /// Always `appstoreconnect-v1` (`aud`).
    public var audience: String
    /// The app's bundle identifier (`bid`).
    public var bundleId: String

    /// Apple's audience for API tokens.
    public static let apiAudience = "appstoreconnect-v1"

    public init(issuerId: String, issuedAt: Int64, expiresAt: Int64, audience: String = apiAudience, bundleId: String) {
        self.issuerId = issuerId
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.audience = audience
        self.bundleId = bundleId
    }

    enum CodingKeys: String, CodingKey {
        case issuerId = "iss"
        case issuedAt = "iat"
        case expiresAt = "exp"
        case audience = "aud"
        case bundleId = "bid"
    }
}
