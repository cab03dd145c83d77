import Foundation

/// The record of operators' actions.
public protocol AuditLog: Sendable {
    /// The app's audit entries, newest first.
    func auditEntries(appId: String, limit: Int) async throws -> [AuditEntry]
}
