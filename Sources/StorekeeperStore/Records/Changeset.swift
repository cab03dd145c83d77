import Foundation

/// Writes that must happen together or not at all: the facts a purchase or a notification
/// brings, the customer links they make, the events they cause, an audit entry, and the
/// inbox row's outcome.
///
/// The store applies a changeset in one transaction, so a crash leaves either everything or
/// nothing; every part is idempotent, so applying it twice is the same as once.
public struct Changeset: Sendable, Hashable {
    public var appId: String
    /// When the changes are made (stamps new customers and aliases).
    public var at: Date
    /// Customers to create, with the aliases to link to each.
    public var links: [CustomerLink]
    /// Facts for the ledger.
    public var entries: [LedgerEntry]
    /// Events for the log.
    public var events: [EventRecord]
    /// Operator actions.
    public var audit: [AuditEntry]
    /// Jobs to add with the facts (a chain's next transition by the clock); an existing job
    /// with the same key is kept.
    public var jobs: [JobRecord] = []
    /// The inbox row this changeset completes, when it comes from a notification.
    public var inboxOutcome: InboxOutcome?
    /// A new offerings version, saved only when the newest is `expectedVersion` (0: none yet);
    /// otherwise the changeset fails with ``StoreError/Code/versionConflict`` and writes nothing.
    public var offeringVersion: NewOfferingVersion?
    /// First exposures to experiments; an existing enrolment is kept.
    public var enrolments: [ExperimentEnrolment] = []
    /// The figures of the chains the facts touched (docs/read-side.md).
    public var figures: [FigureUpdate] = []

    public init(
        appId: String, at: Date, links: [CustomerLink] = [], entries: [LedgerEntry] = [], events: [EventRecord] = [],
        audit: [AuditEntry] = [], inboxOutcome: InboxOutcome? = nil
    ) {
        self.appId = appId
        self.at = at
        self.links = links
        self.entries = entries
        self.events = events
        self.audit = audit
        self.inboxOutcome = inboxOutcome
    }
}

/// A customer and the aliases to link to it.
public struct CustomerLink: Sendable, Hashable {
    public var customerId: String
    public var aliases: [CustomerAlias]

    public init(customerId: String, aliases: [CustomerAlias] = []) {
        self.customerId = customerId
        self.aliases = aliases
    }
}

/// How processing an inbox row ended.
public struct InboxOutcome: Sendable, Hashable {
    public var inboxId: Int64
    public var state: InboxState
    public var failureReason: String?
    public var metadata: NotificationMetadata?
    public var processedAt: Date

    public init(inboxId: Int64, state: InboxState, failureReason: String? = nil, metadata: NotificationMetadata? = nil, processedAt: Date) {
        self.inboxId = inboxId
        self.state = state
        self.failureReason = failureReason
        self.metadata = metadata
        self.processedAt = processedAt
    }
}

/// What applying a changeset did.
public struct ChangesetResult: Sendable, Hashable {
    /// Ledger entries that were new (the rest were already there).
    public var newEntries: Int
    /// Events that were new.
    public var newEvents: Int

    public init(newEntries: Int, newEvents: Int) {
        self.newEntries = newEntries
        self.newEvents = newEvents
    }
}

/// An offerings version to save over `expectedVersion`.
public struct NewOfferingVersion: Sendable, Hashable {
    public var document: String
    public var actor: String
    public var note: String?
    public var expectedVersion: Int

    public init(document: String, actor: String, note: String? = nil, expectedVersion: Int) {
        self.document = document
        self.actor = actor
        self.note = note
        self.expectedVersion = expectedVersion
    }
}
