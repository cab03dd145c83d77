import Foundation

/// A person who signs in to the dashboard: an email, a password hash (never the password), a
/// role and the apps they may see.
public struct DashboardUser: Sendable, Hashable {
    /// What a dashboard user may do: `viewer` reads charts, `support` also works on customers
    /// (grants, revocations, extensions) and reads notifications, `admin` does everything,
    /// users included.
    public enum Role: String, Sendable, Hashable, CaseIterable, Codable {
        case viewer, support, admin
    }

    /// Lower-cased; the key.
    public var email: String
    /// The password's slow hash in its self-describing text form.
    public var passwordHash: String
    public var role: Role
    /// The apps the user may see; `nil` for every app.
    public var apps: [String]?
    public var createdAt: Date
    public var updatedAt: Date

    public init(email: String, passwordHash: String, role: Role, apps: [String]?, createdAt: Date, updatedAt: Date) {
        self.email = email.lowercased()
        self.passwordHash = passwordHash
        self.role = role
        self.apps = apps
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the user may see app `appId`.
    public func mayOpen(appId: String) -> Bool { apps.map { $0.contains(appId) } ?? true }
}
