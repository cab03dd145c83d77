import Foundation

/// Every action the audit log records, by the name the log keeps.
public enum AuditAction: String, Sendable, Hashable, CaseIterable {
    case grant
    case revoke
    case extendRenewal = "extend_renewal"
    case setAppAccountToken = "set_app_account_token"
    case rotateAppAccountToken = "rotate_app_account_token"
    /// A purchase carried an app account token the server never issued (recorded by the intake).
    case unknownAppAccountToken = "unknown_app_account_token"
    case resolveProblem = "resolve_problem"
    case lookupOrder = "lookup_order"
    case requestTestNotification = "request_test_notification"
    case addDashboardUser = "add_dashboard_user"
    case changeDashboardUser = "change_dashboard_user"
    case saveOfferings = "offerings.save"
    case restoreOfferings = "offerings.restore"
    case stopExperiment = "experiment.stop"
    case addWebhook = "add_webhook"
    case changeWebhook = "change_webhook"
    case deleteWebhook = "delete_webhook"
    case enableDestination = "enable_destination"
    case replayDeliveries = "replay_deliveries"
    case uploadRetentionMessage = "retention.message.upload"
    case deleteRetentionMessage = "retention.message.delete"
    case setDefaultRetentionMessage = "retention.default.set"
    case deleteDefaultRetentionMessage = "retention.default.delete"
}

/// One entry of the audit log: an operator's action (a grant, a revocation) with who did it
/// and why. The actor is a key's fingerprint or name, never the key itself.
public struct AuditEntry: Sendable, Hashable {
    public var id: Int64?
    public var appId: String
    public var actor: String
    /// An ``AuditAction``'s name (entries read back keep whatever name was stored).
    public var action: String
    public var customerId: String?
    public var reason: String?
    /// What the action concerned (ids, amounts), as text; kept as a JSON object.
    public var details: [String: String]
    public var at: Date

    public init(
        id: Int64? = nil, appId: String, actor: String, action: AuditAction, customerId: String? = nil,
        reason: String? = nil, details: [String: String] = [:], at: Date
    ) {
        self.init(id: id, appId: appId, actor: actor, actionName: action.rawValue, customerId: customerId, reason: reason, details: details, at: at)
    }

    /// An entry as a store read it back.
    init(
        id: Int64?, appId: String, actor: String, actionName action: String, customerId: String?, reason: String?, details: [String: String],
        at: Date
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

extension AuditEntry {
    /// The stored JSON object text of ``details`` (sorted keys).
    var detailsJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(details)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Details read back from stored text; text that is not a flat object of strings gives none.
    static func details(json: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))) ?? [:]
    }
}
