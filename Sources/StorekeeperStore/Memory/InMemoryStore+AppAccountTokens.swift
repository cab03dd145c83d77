import Foundation

extension InMemoryStore {
    public func issueAppAccountToken(appId: String, customerId: String, proposed: String, at: Date) async throws -> String {
        let holder = AppKey(appId: appId, key: customerId)
        if let current = currentAppAccountTokens[holder] { return current }
        try await issue(proposed.lowercased(), to: customerId, appId: appId, at: at)
        return proposed.lowercased()
    }

    public func rotateAppAccountToken(appId: String, customerId: String, proposed: String, at: Date) async throws -> [String] {
        let revoked = try await aliases(appId: appId, customerId: customerId).filter { $0.kind == .appAccountToken }
        try await issue(proposed.lowercased(), to: customerId, appId: appId, at: at)
        for alias in revoked { aliasOwners[Self.aliasKey(alias, appId: appId)] = nil }
        return revoked.map(\.value)
    }

    /// Links the token to the customer (refused when another customer holds it) and makes it current.
    private func issue(_ token: String, to customerId: String, appId: String, at: Date) async throws {
        try await apply(Changeset(appId: appId, at: at, links: [CustomerLink(customerId: customerId, aliases: [.appAccountToken(token)])]))
        currentAppAccountTokens[AppKey(appId: appId, key: customerId)] = token
    }
}
