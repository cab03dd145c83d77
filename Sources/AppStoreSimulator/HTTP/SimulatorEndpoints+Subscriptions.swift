import AppStoreModels
import Foundation
import Hummingbird

extension SimulatorEndpoints {
    /// Get All Subscription Statuses and the renewal-date extension endpoints.
    func addSubscriptionRoutes(to router: Router<BasicRequestContext>) {
        router.get(
            "/inApps/v1/subscriptions/:transactionId",
            use: api(.getAllSubscriptionStatuses) { request, context in
                try subscriptionStatuses(request, context)
            })
        router.put(
            "/inApps/v1/subscriptions/extend/:originalTransactionId",
            use: api(.extendSubscriptionRenewalDate) { request, context in
                try await extendRenewalDate(request, context)
            })
        router.post(
            "/inApps/v1/subscriptions/extend/mass",
            use: api(.massExtendRenewalDate) { request, _ in
                try await massExtendRenewalDate(request)
            })
        router.get(
            "/inApps/v1/subscriptions/extend/mass/:productId/:requestIdentifier",
            use: api(.massExtendStatus) { _, context in
                guard let productId = context.parameters.get("productId"), let requestIdentifier = context.parameters.get("requestIdentifier"),
                    let outcome = extensions.massExtension(requestIdentifier: requestIdentifier, productId: productId)
                else {
                    throw SimulatorAPIError(
                        .statusRequestNotFound,
                        "The server didn't find a subscription-renewal-date extension request for this requestIdentifier and productId combination.")
                }
                return .appleJSON(
                    MassExtendRenewalDateStatusResponse(
                        requestIdentifier: outcome.requestIdentifier, complete: true, completeDate: outcome.completeDate,
                        succeededCount: outcome.succeededCount, failedCount: outcome.failedCount))
            })
    }

    /// Every subscription of the account, grouped by subscription group, each with its status
    /// now, its latest transaction and its renewal info, signed now.
    private func subscriptionStatuses(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let customer = try customer(ofAnyId: try transactionId(context))
        var wanted: Set<Status>?
        let texts = request.uri.queryParameters.getAll("status")
        if !texts.isEmpty {
            let statuses = texts.map { Int32($0).map(Status.init(rawValue:)) }
            guard statuses.allSatisfy({ $0?.isKnown == true }) else {
                throw SimulatorAPIError(.invalidStatus, "Invalid request. The status parameter is invalid.")
            }
            wanted = Set(statuses.compactMap { $0 })
        }
        let now = clock.now
        var groups: [String: [LastTransactionsItem]] = [:]
        for subscription in store.subscriptions(ofCustomer: customer) {
            let status = subscription.status(at: now)
            if let wanted, !wanted.contains(status) { continue }
            guard let transaction = store.transaction(id: subscription.lastTransactionId) else { continue }
            groups[subscription.subscriptionGroupIdentifier, default: []].append(
                LastTransactionsItem(
                    status: status, originalTransactionId: subscription.originalTransactionId,
                    signedTransactionInfo: try signer.signTransaction(transaction, signedDate: now),
                    signedRenewalInfo: try signer.signRenewalInfo(subscription, store: store, signedDate: now)))
        }
        let data = groups.keys.sorted().map { SubscriptionGroupIdentifierItem(subscriptionGroupIdentifier: $0, lastTransactions: groups[$0]) }
        return .appleJSON(StatusResponse(environment: store.environment, bundleId: store.bundleId, appAppleId: store.appAppleId, data: data))
    }

    /// Extend a Subscription Renewal Date: moves an active subscription's renewal date (and
    /// its latest transaction's expiry) later; Apple creates no transaction. A repeated request
    /// identifier gets the first answer again.
    private func extendRenewalDate(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try transactionId(context, "originalTransactionId", invalid: .invalidOriginalTransactionId)
        let body = try await decodeBody(ExtendRenewalDateRequest.self, from: request)
        let (days, requestIdentifier) = try Self.validateExtension(
            days: body.extendByDays, reason: body.extendReasonCode, requestIdentifier: body.requestIdentifier)
        if let previous = extensions.answer(requestIdentifier: requestIdentifier) { return .appleJSON(previous) }
        guard let subscription = store.subscription(id) else {
            throw SimulatorAPIError(.originalTransactionIdNotFound, "Original transaction id not found.")
        }
        guard subscription.ownership != .familyShared else {
            throw SimulatorAPIError(
                .familySharedSubscriptionExtensionIneligible, "Family Sharing subscriptions can't be extended by the purchaser's family members.")
        }
        let now = clock.now
        guard subscription.status(at: now) == .active else {
            throw SimulatorAPIError(.subscriptionExtensionIneligible, "Forbidden - subscription state ineligible for extension.")
        }
        guard extensions.mayExtend(id, now: now) else {
            throw SimulatorAPIError(.subscriptionMaxExtension, "Forbidden - subscription has reached maximum extension count.")
        }
        guard store.claimRequestIdentifier(requestIdentifier) else {
            throw SimulatorAPIError(.generalInternalRetryable, "A request with this identifier is being processed; retry.")
        }
        let extended = try await extend(id, byDays: days, now: now)
        let answer = ExtendRenewalDateResponse(
            originalTransactionId: id, webOrderLineItemId: extended?.transaction.webOrderLineItemId,
            success: extended != nil, effectiveDate: extended?.subscription.expiresDate)
        extensions.remember(answer, requestIdentifier: requestIdentifier)
        return .appleJSON(answer)
    }

    /// Apple's checks of an extension request: 1–90 days (4000009), a documented reason
    /// (4000010), a request identifier (4000011).
    static func validateExtension(days: Int32?, reason: ExtendReasonCode?, requestIdentifier: String?) throws -> (Int32, String) {
        guard let days, (1...90).contains(days) else {
            throw SimulatorAPIError(.invalidExtendByDays, "Invalid extension. The number of days must be between 1 and 90.")
        }
        guard let reason, reason.isKnown else {
            throw SimulatorAPIError(.invalidExtendReasonCode, "Invalid extension reason code.")
        }
        guard let requestIdentifier, !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else {
            throw SimulatorAPIError(.invalidRequestIdentifier, "Invalid request identifier.")
        }
        return (days, requestIdentifier)
    }
}
