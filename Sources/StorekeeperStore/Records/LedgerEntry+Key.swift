import Foundation
import SubscriptionEngine

extension LedgerEntry {
    /// The idempotency key of a fact, built from Apple's identities of it and never from our
    /// encoding of it, so a new engine field cannot re-record a fact after an upgrade:
    ///
    /// - a signed transaction: `purchase:<transactionId>:s<signedDate ms>` (each JWS Apple
    ///   signs is a new look at the transaction, a later one may carry its refund);
    /// - a renewal info: `renewal:<originalTransactionId>:s<signedDate ms>`;
    /// - an unsigned look (a receipt's in-app entry, a grant): the receipt fields that can
    ///   change for one transaction, `purchase:<transactionId>:r<expires ms>:<revoked ms>:<upgraded>`
    ///   (`-` for an absent date), and for a receipt's renewal fields
    ///   `renewal:<originalTransactionId>:r<product>:<auto-renew>:<billing retry>:<grace ms>:<reason>:<consent>`;
    /// - an operator's revocation: `revocation:<transactionId>:<date ms>`.
    ///
    /// Changing this function re-keys the ledger: it needs a migration (see
    /// `SchemaMigrations`, version 4) and a golden test's update.
    public static func key(for fact: LedgerFact) -> String {
        switch fact {
        case .purchase(let purchase):
            if let signed = purchase.signedDate { return "purchase:\(purchase.transactionId):s\(signed.millisecondsSince1970)" }
            let upgraded = purchase.isUpgraded ? "1" : "0"
            return "purchase:\(purchase.transactionId):r\(millis(purchase.expiresDate)):\(millis(purchase.revocation?.date)):\(upgraded)"
        case .renewal(let renewal):
            if let signed = renewal.signedDate { return "renewal:\(renewal.originalTransactionId):s\(signed.millisecondsSince1970)" }
            let parts = [
                renewal.autoRenewProductId ?? "-", flag(renewal.willAutoRenew), flag(renewal.isInBillingRetry),
                millis(renewal.gracePeriodExpiresDate), renewal.expirationReason.map { "\($0.rawValue)" } ?? "-",
                renewal.priceIncreaseConsent.map { "\($0.rawValue)" } ?? "-",
            ]
            return "renewal:\(renewal.originalTransactionId):r" + parts.joined(separator: ":")
        case .revocation(let revocation):
            return "revocation:\(revocation.transactionId):\(revocation.date.millisecondsSince1970)"
        }
    }

    private static func millis(_ date: Date?) -> String {
        date.map { "\($0.millisecondsSince1970)" } ?? "-"
    }

    private static func flag(_ value: Bool?) -> String {
        value.map { $0 ? "1" : "0" } ?? "-"
    }
}
