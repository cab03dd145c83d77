import Foundation

/// The dashboard's settings (`"dashboard"` in the configuration).
public struct DashboardConfiguration: Sendable, Codable, Hashable {
    /// How long a sign-in lasts, in hours (12 by default).
    public var sessionHours: Double
    /// An admin created at start when no user has this email: the first way in on a new server.
    /// The hash comes from `storekeeper user hash` (the configuration never holds a password).
    public var initialAdmin: InitialAdmin?

    public struct InitialAdmin: Sendable, Codable, Hashable {
        public var email: String
        public var passwordHash: String

        public init(email: String, passwordHash: String) {
            self.email = email
            self.passwordHash = passwordHash
        }
    }

    public init(sessionHours: Double = 12, initialAdmin: InitialAdmin? = nil) {
        self.sessionHours = sessionHours
        self.initialAdmin = initialAdmin
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sessionHours = try container.decodeIfPresent(Double.self, forKey: .sessionHours) ?? 12
        initialAdmin = try container.decodeIfPresent(InitialAdmin.self, forKey: .initialAdmin)
        guard sessionHours > 0, sessionHours <= 24 * 30 else {
            throw DecodingError.dataCorruptedError(
                forKey: .sessionHours, in: container, debugDescription: "sessionHours must be above 0 and at most 720")
        }
        if let admin = initialAdmin {
            guard admin.email.contains("@"), (3...254).contains(admin.email.count) else {
                throw DecodingError.dataCorruptedError(forKey: .initialAdmin, in: container, debugDescription: "initialAdmin.email must be an email")
            }
            guard PasswordHash.isWellFormed(admin.passwordHash) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .initialAdmin, in: container,
                    debugDescription: "initialAdmin.passwordHash must be a hash printed by `storekeeper user hash`, not a password")
            }
        }
    }
}
