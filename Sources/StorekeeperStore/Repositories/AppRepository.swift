import Foundation

/// The apps (tenants) the store knows.
public protocol AppRepository: Sendable {
    /// Records an app, or updates its bundle id; idempotent.
    func saveApp(_ app: AppRecord) async throws
    /// Every app, by id.
    func apps() async throws -> [AppRecord]
}
