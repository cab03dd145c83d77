import Foundation

/// A signed-in dashboard visitor: the SHA-256 of the session cookie's token (the token itself
/// is never stored), whose session it is, and until when it is good.
public struct DashboardSession: Sendable, Hashable {
    /// Lower-case hex SHA-256 of the cookie's token; the key.
    public var tokenHash: String
    /// The signed-in user.
    public var email: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(tokenHash: String, email: String, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.email = email.lowercased()
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
