import StorekeeperStore

/// Which dashboard users an admin may manage, and which apps they may give.
///
/// An admin of every app manages everyone. An admin limited to some apps manages only users
/// limited to some of those same apps (themselves included) and gives only those apps, so no
/// one limited to an app can reach past it: not by creating a user of every app, not by adding
/// an app to their own account, not by resetting the password of someone who sees more (a user
/// of every app, a global admin above all, is out of their reach altogether).
extension DashboardUser {
    /// Whether this user (an admin) may see, change, reset or remove `user`.
    package func mayManage(_ user: DashboardUser) -> Bool {
        guard role == .admin else { return false }
        guard let own = apps else { return true }
        guard let theirs = user.apps else { return false }
        return Set(theirs).isSubset(of: own)
    }

    /// Whether this user (an admin) may give someone `granted` (`nil`: every app).
    package func mayGive(apps granted: [String]?) -> Bool {
        guard role == .admin else { return false }
        guard let own = apps else { return true }
        guard let granted else { return false }
        return Set(granted).isSubset(of: own)
    }
}
