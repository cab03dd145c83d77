import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionEngine

extension JobRunner {
    /// Answers a `CONSUMPTION_REQUEST` under the app's ``RefundPolicy`` while Apple's window is
    /// open, and records what was done (or why nothing was) in the customer's timeline.
    package func answerConsumption(_ job: JobRecord, app: AppRuntime, client: any AppStoreServerAPIClientProtocol) async throws {
        let payload = try Self.decode(ConsumptionPayload.self, job)
        guard let row = try await store.notification(id: payload.inboxId), row.appId == app.id else {
            throw PermanentFailure(description: "inbox row \(payload.inboxId) is gone")
        }
        let now = clock()
        guard let body = try? JSONDecoder().decode(ResponseBodyV2.self, from: Data(row.body.utf8)), let signed = body.signedPayload,
            case .valid(let verified) = await app.verify(signedOnly: true, { await $0.verifyAndDecodeNotificationWithNestedData(signed, now: now) }),
            let transaction = verified.transaction, let transactionId = transaction.transactionId
        else {
            throw PermanentFailure(description: "inbox row \(payload.inboxId) is not a verifiable CONSUMPTION_REQUEST")
        }
        let chain = transaction.originalTransactionId
        let customer = try await chain.asyncMap { try await store.customer(appId: app.id, alias: .originalTransactionId($0)) } ?? nil
        let policy = app.configuration.refundPolicy ?? .doNotAnswer
        let requested = verified.notification.signedDate ?? row.receivedAt
        let deadline = requested.addingTimeInterval(configuration.consumptionWindowSeconds)
        let type: EventType
        var details = EventDetails(
            transactionId: transactionId, notificationUUID: verified.notification.notificationUUID, policy: policy.rawValue, deadline: deadline)
        if now > deadline {
            type = .consumptionExpired
        } else if policy.refundPreference != nil, app.configuration.consumptionDataConsent != true {
            // Apple takes consumption data only with the customer's consent, which the app
            // declares for its customers (`consumptionDataConsent`); without it, nothing is sent.
            type = .consumptionNotAnswered
            details.reason = "no_consent: the app does not declare consumptionDataConsent"
            logger.notice("consumption request not answered: the app does not declare consumptionDataConsent", metadata: ["app": "\(app.id)"])
        } else if let preference = policy.refundPreference {
            let request = ConsumptionRequest(
                customerConsented: true, deliveryStatus: .delivered, refundPreference: preference, sampleContentProvided: false)
            try await client.sendConsumptionInformation(transactionId: transactionId, request: request)
            type = .consumptionSent
            details.refundPreference = preference.rawValue
        } else {
            type = .consumptionNotAnswered
        }
        let key = "consumption:\(verified.notification.notificationUUID?.lowercased() ?? "inbox-\(payload.inboxId)")"
        try await store.apply(
            Changeset(
                appId: app.id, at: now,
                events: [
                    EventRecord(
                        appId: app.id, customerId: customer, originalTransactionId: chain, type: type, details: details,
                        occurredAt: now, idempotencyKey: key)
                ]))
    }
}
