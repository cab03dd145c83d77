import Foundation

/// One entry of the audit log: an operator's action (a grant, a revocation) with who did it
/// and why. The actor is a key's fingerprint or name, never the key itself.
public struct AuditEntry: Sendable, Hashable {
    public var id: Int64?
    public var appId: String
    public var actor: String
    public var action: String
    public var customerId: String?
    public var reason: String?
    /// Details, JSON object text.
    public var details: String
    public var at: Date

    public init(
        id: Int64? = nil, appId: String, actor: String, action: String, customerId: String? = nil,
        reason: String? = nil, details: String = "{}", at: Date
    ) {
        self.id = id
        self.appId = appId
        self.actor = actor
        self.action = action
        self.customerId = customerId
        self.reason = reason
        self.details = details
        self.at = at
    }
}
