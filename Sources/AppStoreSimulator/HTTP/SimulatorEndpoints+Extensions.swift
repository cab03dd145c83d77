import AppStoreModels
import Foundation
import Hummingbird

extension SimulatorEndpoints {
    /// Extend Subscription Renewal Dates for All Active Subscribers, processed at once: every
    /// active subscription of the product (in the given storefronts) that may still be
    /// extended is; the others count as failed. Apple then sends `RENEWAL_EXTENDED` for each
    /// and one `RENEWAL_EXTENSION`/`SUMMARY`.
    func massExtendRenewalDate(_ request: Request) async throws -> Response {
        let body = try await decodeBody(MassExtendRenewalDateRequest.self, from: request)
        let (days, requestIdentifier) = try Self.validateExtension(
            days: body.extendByDays, reason: body.extendReasonCode, requestIdentifier: body.requestIdentifier)
        guard let productId = body.productId, !productId.isEmpty else {
            throw SimulatorAPIError(.invalidProductId, "Invalid request. The product id parameter is invalid.")
        }
        if let codes = body.storefrontCountryCodes {
            guard !codes.isEmpty else {
                throw SimulatorAPIError(.invalidEmptyStorefrontCountryCodeList, "Invalid request. The storefront country code list is empty.")
            }
            guard codes.allSatisfy({ $0.count == 3 && $0.allSatisfy { $0.isASCII && $0.isUppercase } }) else {
                throw SimulatorAPIError(.invalidStorefrontCountryCode, "Invalid request. A storefront country code is invalid.")
            }
        }
        let now = clock.now
        var outcome = RenewalExtensionLedger.MassExtension(
            productId: productId, requestIdentifier: requestIdentifier, completeDate: now, succeededCount: 0, failedCount: 0)
        if extensions.massExtension(requestIdentifier: requestIdentifier, productId: productId) != nil {
            return .appleJSON(MassExtendRenewalDateResponse(requestIdentifier: requestIdentifier))
        }
        for subscription in store.subscriptions() where subscription.productId == productId && subscription.ownership != .familyShared {
            guard subscription.status(at: now) == .active else { continue }
            if let codes = body.storefrontCountryCodes {
                let storefront = store.transaction(id: subscription.lastTransactionId)?.storefront ?? ""
                guard codes.contains(storefront) else { continue }
            }
            if extensions.mayExtend(subscription.originalTransactionId, now: now),
                try await extend(subscription.originalTransactionId, byDays: days, now: now) != nil
            {
                outcome.succeededCount += 1
            } else {
                outcome.failedCount += 1
            }
        }
        guard extensions.recordMassExtension(outcome) else {
            return .appleJSON(MassExtendRenewalDateResponse(requestIdentifier: requestIdentifier))
        }
        var payload = ResponseBodyV2DecodedPayload()
        payload.notificationType = .renewalExtension
        payload.subtype = .summary
        payload.notificationUUID = UUID().uuidString.lowercased()
        payload.version = "2.0"
        payload.signedDate = now
        payload.summary = Summary(
            environment: store.environment, appAppleId: store.appAppleId, bundleId: store.bundleId, productId: productId,
            requestIdentifier: requestIdentifier, storefrontCountryCodes: body.storefrontCountryCodes,
            succeededCount: outcome.succeededCount, failedCount: outcome.failedCount)
        let signed = try signer.certificateAuthority.signNotification(payload)
        try await publish(
            NotificationRecord(
                notificationUUID: payload.notificationUUID ?? "", notificationType: .renewalExtension, subtype: .summary,
                originalTransactionId: nil, transactionId: nil, firstSendDate: now, signedPayload: signed))
        return .appleJSON(MassExtendRenewalDateResponse(requestIdentifier: requestIdentifier))
    }

    /// Moves one subscription's renewal date (and its family-shared copies') `days` later,
    /// updates the latest transactions' expiry, and sends `RENEWAL_EXTENDED`. `nil` when the
    /// subscription or its latest transaction is unknown.
    func extend(
        _ originalTransactionId: String, byDays days: Int32, now: Date
    ) async throws
        -> (subscription: SubscriptionTruth, transaction: JWSTransactionDecodedPayload)?
    {
        let chains = [originalTransactionId] + store.subscriptions().filter { $0.sharedFrom == originalTransactionId }.map(\.originalTransactionId)
        var result: (SubscriptionTruth, JWSTransactionDecodedPayload)?
        for chain in chains {
            guard let subscription = store.modify(chain, { $0.expiresDate.addTimeInterval(TimeInterval(days) * 86_400) }),
                var transaction = store.transaction(id: subscription.lastTransactionId)
            else { continue }
            transaction.expiresDate = subscription.expiresDate
            store.record(transaction, customerId: subscription.customerId)
            let uuid = UUID().uuidString.lowercased()
            let signed = try signer.signNotification(
                type: .renewalExtended, subtype: nil, uuid: uuid, transaction: transaction, subscription: subscription,
                store: store, signedDate: now)
            try await publish(
                NotificationRecord(
                    notificationUUID: uuid, notificationType: .renewalExtended, subtype: nil, originalTransactionId: chain,
                    transactionId: transaction.transactionId, firstSendDate: now, signedPayload: signed))
            if chain == originalTransactionId { result = (subscription, transaction) }
        }
        if result != nil { extensions.recordExtension(originalTransactionId, at: now) }
        return result
    }

    /// Adds a notification to the history and hands it to delivery.
    func publish(_ record: NotificationRecord) async throws {
        store.recordNotification(record)
        await created(record)
    }
}
