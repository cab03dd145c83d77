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
    /// What the action concerned (ids, amounts), as text; kept as a JSON object.
    public var details: [String: String]
    public var at: Date

    public init(
        id: Int64? = nil, appId: String, actor: String, action: String, customerId: String? = nil,
        reason: String? = nil, details: [String: String] = [:], at: Date
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
