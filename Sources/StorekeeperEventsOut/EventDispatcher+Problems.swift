import Foundation
import StorekeeperStore

extension EventDispatcher {
    /// A dead delivery opens a problem: a paying customer's event lost on the way to the app's
    /// backend is a support ticket with the money (`charged_not_delivered`), anything else the
    /// destination's `dead_letters`; a delivery that gets through resolves the latter.
    package func noteProblems(_ delivery: OutboxDelivery, outcome: DeliveryOutcome, error: String?, at now: Date) async throws {
        let type = delivery.event.type.rawValue
        // Problems and the test event never open a problem of their own.
        guard ![EventType.problemOpened, .problemResolved, .testEvent].contains(delivery.event.type), let app = apps.apps[delivery.appId]
        else { return }
        let desk = ProblemDesk(store: store)
        switch outcome {
        case .delivered:
            try await desk.resolve(causeKey: "\(ProblemDesk.deadLetters):\(delivery.destination)", app: app, by: "automatic", at: now)
            if delivery.attempts > 1 || delivery.state == .pending && delivery.lastError != nil {
                // A replayed or retried delivery that got through closes its ticket.
                let eventId = delivery.event.details.eventId ?? delivery.event.idempotencyKey
                try await desk.resolve(causeKey: "undelivered:\(eventId)", app: app, by: "automatic", at: now)
            }
        case .dead:
            let details = delivery.event.details
            let eventId = details.eventId ?? delivery.event.idempotencyKey
            var evidence = ["destination": delivery.destination, "eventId": eventId, "type": type, "attempts": "\(delivery.attempts)"]
            evidence["lastError"] = error
            evidence["transactionId"] = details.transactionId
            evidence["originalTransactionId"] = delivery.event.originalTransactionId
            evidence[ProblemDesk.environmentEvidence] = details.environment
            // A payment whose amount is unknown (a period learned from a receipt, which has no
            // price) is a payment all the same.
            let paid = (IntegrationMessages.revenueSign(of: type) ?? 0) > 0 && (details.price.map { $0 > 0 } ?? true)
            let isWebhook = app.webhooks().contains { $0.id == delivery.destination }
            let problem =
                paid && isWebhook
                ? Problem(
                    appId: app.id, kind: ProblemDesk.chargedNotDelivered, causeKey: "undelivered:\(eventId)", customerId: delivery.event.customerId,
                    summary:
                        "\(delivery.event.customerId ?? "a customer") paid for \(details.productId ?? "a product") but \(delivery.destination) never received \(type)",
                    evidence: evidence, amount: details.price, currency: details.currency, openedAt: now)
                : Problem(
                    appId: app.id, kind: ProblemDesk.deadLetters, causeKey: "\(ProblemDesk.deadLetters):\(delivery.destination)",
                    summary: "deliveries to \(delivery.destination) are dead-lettered", evidence: evidence, openedAt: now)
            try await desk.open(problem, app: app, excluding: delivery.destination)
        case .retry:
            break
        }
    }

}
