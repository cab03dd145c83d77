import Foundation
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

/// The one path by which facts reach the ledger, whatever their source: V2 and V1
/// notifications, purchases the app posts, reconciliation and import answers, the operator's
/// grants and revocations.
///
/// Each source verifies and decides; the intake resolves the customer once, builds the ledger
/// entries (keyed by Apple's identities, ``LedgerEntry/key(for:)``), computes each chain's
/// state before and after with the engine, and returns one ``Changeset`` with typed events:
/// the source's own, one per new fact where the source records them (`purchase.recorded`,
/// `grant.recorded`, `revoke.recorded`), and `subscription.status_changed` per changed chain.
/// A fact already in the ledger causes no event, so any source repeating it changes nothing.
package struct FactIntake: Sendable {
    /// The intake reads ledgers and owners and applies changesets: nothing else of the store.
    package let store: any LedgerRepository & CustomerRepository & EventLog
    /// Where decisions read: the store, or what a run of notifications fetched ahead.
    package var reads: any IntakeReads

    package init(store: any LedgerRepository & CustomerRepository & EventLog, reads: (any IntakeReads)? = nil) {
        self.store = store
        self.reads = reads ?? StoreReads(store: store)
    }

    /// A chain or token the submission would link to its customer is another customer's.
    package struct AliasTaken: Error, Sendable, CustomStringConvertible {
        package var alias: CustomerAlias

        package var description: String { "the \(alias.kind.rawValue) belongs to another customer of the app" }
    }

    /// Decides and applies a submission in one transaction.
    @discardableResult
    package func record(_ submission: FactSubmission, app: AppRuntime, now: Date) async throws -> ChangesetResult {
        try await store.apply(changeset(for: submission, app: app, now: now))
    }

    /// The changeset a submission makes; throws ``AliasTaken`` for a claim on another's chain.
    package func changeset(for submission: FactSubmission, app: AppRuntime, now: Date) async throws -> Changeset {
        let chains = Set(submission.facts.compactMap(\.fact.originalTransactionId))
        let (customer, links) = try await resolve(submission.binding, chains: chains, appId: app.id, now: now)
        let entryCustomer: String? = if case .operatorFor(let id) = submission.binding { id } else { nil }
        let entries = submission.facts.map {
            LedgerEntry(appId: app.id, fact: $0.fact, customerId: entryCustomer, source: submission.source, raw: $0.raw, recordedAt: now)
        }
        var known: [String: [LedgerEntry]] = [:]
        for chain in chains.sorted() {
            known[chain] = try await reads.ledger(appId: app.id, originalTransactionId: chain)
        }
        let knownKeys = Set(known.values.joined().map(\.key))
        let fresh = entries.filter { !knownKeys.contains($0.key) }
        var events = submission.events + fresh.compactMap { factEvent($0, source: submission.source, now: now) }
        events += StatusChanges.events(
            appId: app.id, known: known, fresh: fresh, catalog: app.catalog, now: now)
        var jobs: [JobRecord] = []
        var figures: [FigureUpdate] = []
        // Chains this submission links to a customer, and whom to.
        var linked: [String: String] = [:]
        for link in links {
            for alias in link.aliases where alias.kind == .originalTransactionId { linked[alias.value] = linked[alias.value] ?? link.customerId }
        }
        for chain in chains.sorted() {
            let linkedBefore = try await reads.customer(appId: app.id, alias: .originalTransactionId(chain))
            guard fresh.contains(where: { $0.fact.originalTransactionId == chain }) else {
                // A known chain linked to its customer now moves into the customer's cohort.
                if linkedBefore == nil, let linkedNow = linked[chain], let ledger = known[chain], !ledger.isEmpty {
                    figures += ChainFigureUpdates.updates(app: app, chain: chain, ledger: ledger, customer: linkedNow, now: now)
                }
                continue
            }
            let ledger = (known[chain] ?? []) + fresh.filter { $0.fact.originalTransactionId == chain }
            figures += ChainFigureUpdates.updates(app: app, chain: chain, ledger: ledger, customer: linkedBefore ?? linked[chain], now: now)
            let recorded = try await reads.eventKeys(appId: app.id, originalTransactionId: chain)
            let owner = linkedBefore ?? customer
            let found = CustomerEvents.events(
                runtime: app, chain: chain, ledger: ledger, customer: owner, recorded: recorded, source: submission.source.rawValue,
                now: now)
            events += found.events
            jobs += found.next.map { [$0] } ?? []
        }
        for index in events.indices where events[index].customerId == nil {
            events[index].customerId = customer
        }
        var audit = submission.audit
        if customer == nil, case .apple(let token?) = submission.binding, !fresh.isEmpty {
            audit.append(Self.unknownToken(token, chains: chains, app: app, now: now))
        }
        var changeset = Changeset(
            appId: app.id, at: now, links: links, entries: entries, events: events, audit: audit,
            inboxOutcome: submission.inboxOutcome)
        changeset.jobs = jobs
        changeset.figures = figures
        return changeset
    }

    /// Records the customer events of `chain` that the clock has brought by `now` (a period
    /// ended with no renewal, a grace period ran out), and plans the next look.
    package func recordTransitions(chain: String, app: AppRuntime, now: Date) async throws {
        let ledger = try await store.ledger(appId: app.id, originalTransactionId: chain)
        guard !ledger.isEmpty else { return }
        let recorded = try await store.eventKeys(appId: app.id, originalTransactionId: chain)
        let linked = try await store.customer(appId: app.id, alias: .originalTransactionId(chain))
        let owner = linked ?? ledger.lazy.compactMap(\.customerId).first
        let found = CustomerEvents.events(
            runtime: app, chain: chain, ledger: ledger, customer: owner, recorded: recorded, source: "clock", now: now)
        var changeset = Changeset(appId: app.id, at: now, events: found.events)
        changeset.jobs = found.next.map { [$0] } ?? []
        changeset.figures = ChainFigureUpdates.updates(app: app, chain: chain, ledger: ledger, customer: linked, now: now)
        try await store.apply(changeset)
    }

    /// The customer the facts belong to and the links to make, decided once.
    private func resolve(
        _ binding: CustomerBinding, chains: Set<String>, appId: String, now: Date
    ) async throws -> (customer: String?, links: [CustomerLink]) {
        let chainAliases = chains.sorted().map(CustomerAlias.originalTransactionId)
        switch binding {
        case .claimedBy(let customer, let token):
            try await claim((token.map { [CustomerAlias.appAccountToken($0)] } ?? []) + chainAliases, for: customer, appId: appId)
            return (customer, [CustomerLink(customerId: customer, aliases: chainAliases)])
        case .imported(let customer?, let chain):
            try await claim([.originalTransactionId(chain)], for: customer, appId: appId)
            return (customer, [CustomerLink(customerId: customer, aliases: [.originalTransactionId(chain)])])
        case .operatorFor(let customer):
            return (customer, [CustomerLink(customerId: customer)])
        case .apple(let token):
            var owners: [String] = []
            for alias in chainAliases {
                if let owner = try await reads.customer(appId: appId, alias: alias) { owners.append(owner) }
            }
            if let owner = owners.first { return (owner, []) }
            guard let token, let customer = try await reads.customer(appId: appId, alias: .appAccountToken(token)) else { return (nil, []) }
            return (customer, chainAliases.isEmpty ? [] : [CustomerLink(customerId: customer, aliases: chainAliases)])
        case .imported(nil, _):
            for alias in chainAliases {
                if let owner = try await reads.customer(appId: appId, alias: alias) { return (owner, []) }
            }
            return (nil, [])
        }
    }

    /// The record of a token Apple reported that the server never issued: it linked nothing.
    private static func unknownToken(_ token: String, chains: Set<String>, app: AppRuntime, now: Date) -> AuditEntry {
        AuditEntry(
            appId: app.id, actor: "apple", action: .unknownAppAccountToken,
            reason: "no customer was issued this app account token: the chain stays unowned until a customer posts it",
            details: ["appAccountToken": token.lowercased(), "originalTransactionIds": chains.sorted().joined(separator: ",")], at: now)
    }

    private func claim(_ aliases: [CustomerAlias], for customer: String, appId: String) async throws {
        for alias in aliases {
            if let owner = try await reads.customer(appId: appId, alias: alias), !CustomerId.same(owner, customer) { throw AliasTaken(alias: alias) }
        }
    }

    /// The event a new fact causes by itself, for the sources that record one per fact.
    private func factEvent(_ entry: LedgerEntry, source: FactSource, now: Date) -> EventRecord? {
        let type: EventType
        let occurredAt: Date
        var details = EventDetails(transactionId: entry.fact.transactionId)
        switch (entry.fact, source) {
        case (.purchase(let fact), .storeKit2), (.purchase(let fact), .receipt):
            type = .purchaseRecorded
            occurredAt = fact.purchaseDate
            details.productId = fact.productId
            details.source = source.rawValue
        case (.purchase(let fact), .manual):
            type = .grantRecorded
            occurredAt = now
            details.productId = fact.productId
        case (.revocation, .manual):
            type = .revocationRecorded
            occurredAt = now
        default:
            return nil
        }
        return EventRecord(
            appId: entry.appId, originalTransactionId: entry.fact.originalTransactionId, type: type, details: details,
            occurredAt: occurredAt, idempotencyKey: "\(type.rawValue):\(entry.key)")
    }
}
