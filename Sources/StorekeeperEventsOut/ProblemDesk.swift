import Foundation
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore

/// Opens and resolves problems with their alerts: `problem.opened` and `problem.resolved` events
/// to every destination that wants them (Slack, Telegram, webhooks), written with the problem.
///
/// An alert carries the app, the customer when the problem is one customer's, and the
/// environment when the problem comes from one (the evidence's `environment`: a reported
/// purchase's, a dead delivery's event's); it goes only to the destinations that take that
/// environment. A problem of the whole app (a job kind failing, Apple refusing the key) names
/// no environment and goes to every destination that wants the type. Analytics integrations
/// take problem events only when their `events` name them (``IntegrationConfiguration``).
package struct ProblemDesk: Sendable {
    package let store: any StorekeeperStorage

    package init(store: any StorekeeperStorage) {
        self.store = store
    }

    /// Kinds of problems the server opens.
    package static let chargedNotDelivered = "charged_not_delivered"
    package static let notCharged = "not_charged"
    package static let deadLetters = "dead_letters"
    package static let jobFailing = "job_failing"
    package static let appleUnauthorized = "apple_unauthorized"
    /// The evidence field naming the environment a problem comes from (`Sandbox`, `Production`).
    package static let environmentEvidence = "environment"

    /// Opens `problem` (or counts another occurrence of its open cause), alerting every
    /// destination that wants `problem.opened` but `excluded` (the destination that failed).
    @discardableResult
    package func open(_ problem: Problem, app: AppRuntime, excluding excluded: String? = nil) async throws -> Bool {
        let event = Self.event(.problemOpened, problem: problem, at: problem.openedAt, app: app, excluding: excluded)
        return try await store.openProblem(problem, event: problem.status == .open ? event : nil)
    }

    /// Resolves the open problem of `causeKey`, alerting with `problem.resolved`.
    @discardableResult
    package func resolve(causeKey: String, app: AppRuntime, by: String, at: Date) async throws -> Problem? {
        try await store.resolveProblem(appId: app.id, causeKey: causeKey, at: at, by: by) { problem in
            Self.event(.problemResolved, problem: problem, at: at, app: app, excluding: nil)
        }
    }

    package static func event(_ type: EventType, problem: Problem, at: Date, app: AppRuntime, excluding: String?) -> EventRecord {
        let key = "\(type):\(problem.causeKey):\(problem.openedAt.millisecondsSince1970)"
        var details = EventDetails(reason: problem.summary)
        details.eventId = CustomerEvents.publicId(appId: app.id, key: key)
        details.problemKind = problem.kind
        details.evidence = problem.evidence
        details.price = problem.amount
        details.currency = problem.currency
        details.source = "problems"
        details.environment = problem.evidence[Self.environmentEvidence]
        var event = EventRecord(
            appId: app.id, customerId: problem.customerId, type: type, details: details, occurredAt: at,
            idempotencyKey: "event:" + key)
        event.destinations = app.destinations(type: type, environment: details.environment).filter { $0 != excluding }
        return event
    }
}
