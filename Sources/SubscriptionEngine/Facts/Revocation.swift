import Foundation

/// Apple taking back one transaction at a date (a refund, a family revocation, an upgrade).
///
/// `cancellation_date` (legacy) and `revocationDate` (StoreKit 2) win over `expires_date`:
/// access from the transaction ends at ``date`` whatever the expiry says.
public struct Revocation: Sendable, Hashable, Codable {
    /// When access ended.
    public var date: Date
    /// Why.
    public var kind: RevocationKind
    /// The refunded share for a prorated refund, in Apple's milliunits (50 000 = 50 %).
    public var percentage: Int?
    /// Apple's reason code when given: `true` for "an actual or perceived issue in the app"
    /// (`revocationReason` / `cancellation_reason` 1), `false` for other reasons (0).
    public var dueToAppIssue: Bool?

    public init(date: Date, kind: RevocationKind, percentage: Int? = nil, dueToAppIssue: Bool? = nil) {
        self.date = date
        self.kind = kind
        self.percentage = percentage
        self.dueToAppIssue = dueToAppIssue
    }

    /// True when the revocation takes access away (everything but an upgrade).
    public var removesAccess: Bool { kind != .upgrade }
}
