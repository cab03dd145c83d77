import Foundation
import StorekeeperApps
import StorekeeperStore

extension StorekeeperAPI {
    /// Records an operator's action that changes nothing else in the store (an action that
    /// records facts or a document carries its ``AuditEntry`` in that same changeset instead).
    /// `actor` is a key's fingerprint or a dashboard user, never a secret.
    package func audit(
        _ action: AuditAction, app: AppRuntime, actor: String, customerId: String? = nil, reason: String? = nil, details: [String: String] = [:],
        at now: Date
    ) async throws {
        try await store.apply(
            Changeset(
                appId: app.id, at: now,
                audit: [AuditEntry(appId: app.id, actor: actor, action: action, customerId: customerId, reason: reason, details: details, at: now)]))
    }
}
