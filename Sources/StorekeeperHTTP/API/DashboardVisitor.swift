import StorekeeperStore

/// A signed-in visitor of the dashboard: the user, their session (by its token's hash) and the
/// CSRF token every form of theirs carries.
package struct DashboardVisitor: Sendable {
    package var user: DashboardUser
    package var tokenHash: String
    package var csrf: String

    package init(user: DashboardUser, tokenHash: String, csrf: String) {
        self.user = user
        self.tokenHash = tokenHash
        self.csrf = csrf
    }

    package var mayWorkOnCustomers: Bool { user.role != .viewer }
    package var isAdmin: Bool { user.role == .admin }
    /// The name support actions are audited under.
    package var actor: String { "dashboard:" + user.email }
}
