import Foundation
import StorekeeperStore
import SubscriptionEngine

/// Verified facts from one source, handed to the ``FactIntake``: what they are, where they
/// came from, whose they are, and what else the source records with them.
package struct FactSubmission: Sendable {
    /// The facts, already verified by the source (signature, bundle, environment, catalog),
    /// each with the signed data or body it was taken from, kept beside it.
    package var facts: [SubmittedFact]
    package var source: FactSource
    package var binding: CustomerBinding
    /// Events the source itself adds (Apple asking about a refund request), besides the ones the intake
    /// derives from the facts.
    package var events: [EventRecord] = []
    package var audit: [AuditEntry] = []
    /// The inbox row the facts complete, for notifications.
    package var inboxOutcome: InboxOutcome?

    package init(
        facts: [LedgerFact], source: FactSource, raw: String? = nil, binding: CustomerBinding,
        events: [EventRecord] = [], audit: [AuditEntry] = [], inboxOutcome: InboxOutcome? = nil
    ) {
        self.init(
            signed: facts.map { SubmittedFact(fact: $0, raw: raw) }, source: source, binding: binding, events: events, audit: audit,
            inboxOutcome: inboxOutcome)
    }

    /// Facts that each come with their own signed data (an App Store Server API answer).
    package init(
        signed facts: [SubmittedFact], source: FactSource, binding: CustomerBinding,
        events: [EventRecord] = [], audit: [AuditEntry] = [], inboxOutcome: InboxOutcome? = nil
    ) {
        self.facts = facts
        self.source = source
        self.binding = binding
        self.events = events
        self.audit = audit
        self.inboxOutcome = inboxOutcome
    }

    /// The facts of a purchase history: purchases by transaction id, then renewal facts by chain.
    /// `environment` (a verified receipt's) is stamped on purchases whose source did not say.
    package static func facts(of history: PurchaseHistory, environment: String? = nil) -> [LedgerFact] {
        history.purchases.values.sorted { $0.transactionId < $1.transactionId }.map { purchase in
            var purchase = purchase
            purchase.environment = purchase.environment ?? environment
            return .purchase(purchase)
        } + history.renewals.values.sorted { $0.originalTransactionId < $1.originalTransactionId }.map(LedgerFact.renewal)
    }
}

/// One fact and the signed data or body it was taken from.
package struct SubmittedFact: Sendable {
    package var fact: LedgerFact
    package var raw: String?

    package init(fact: LedgerFact, raw: String? = nil) {
        self.fact = fact
        self.raw = raw
    }
}

/// Whose facts a submission carries, and so which customer links it makes.
package enum CustomerBinding: Sendable, Hashable {
    /// The app posted them for this customer (its purchases): their chains are linked to it;
    /// a chain another customer owns, or an `appAccountToken` the server issued to another
    /// customer, refuses the submission (``FactIntake/AliasTaken``). The token itself is never
    /// linked: only the server issues tokens.
    case claimedBy(customerId: String, appAccountToken: String?)
    /// The operator recorded them for this customer (grants, revocations): the entries carry
    /// the customer, whatever chain they name.
    case operatorFor(customerId: String)
    /// Apple sent them: they belong to whoever owns their chain; when nobody does yet and the
    /// transaction's `appAccountToken` was issued to a customer, the chains are linked to that
    /// one. A token nobody was issued links nothing (recorded in the audit log): the chain
    /// stays unowned until a customer posts its signed transaction.
    case apple(appAccountToken: String?)
    /// An import of `chain`'s history: the operator says whose the chain is (linked, refused
    /// if another's), or nobody's (then as ``apple(appAccountToken:)`` without a token).
    case imported(customerId: String?, chain: String)
}
