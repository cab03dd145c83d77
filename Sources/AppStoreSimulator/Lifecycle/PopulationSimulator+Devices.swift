import AppStoreModels
import Foundation

extension PopulationSimulator {
    /// What a simulated device asks of the App Store.
    public enum DeviceAction: Sendable, Hashable {
        /// Buys a product (a subscription starts a chain; `offer` may be `trial` or `offerCode`).
        case buy(productId: String, appAccountToken: String?, offer: String?)
        /// Turns the customer's subscription in `productId`'s group off or back on.
        case setAutoRenew(productId: String, on: Bool)
        /// Apple refunds the customer's current period of `productId`'s group.
        case refund(productId: String)
    }

    /// Why the store refused a device's action.
    public struct DeviceRefusal: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Code: String, Sendable {
            case productUnavailable = "product_unavailable"
            case alreadySubscribed = "already_subscribed"
            case alreadyOwned = "already_owned"
            case noSubscription = "no_subscription"
        }
        public var code: Code
        public var message: String
        public var description: String { "\(code.rawValue): \(message)" }
    }

    /// The products on sale.
    public var catalog: [SimulatedProduct] { configuration.products }

    /// The number of the customer a device names (after the population's own).
    func deviceCustomerNumber(_ customerId: String) -> Int {
        if let number = deviceCustomerNumbers[customerId] { return number }
        let number = 1_000_000_000 + deviceCustomerNumbers.count
        deviceCustomerNumbers[customerId] = number
        deviceCustomerIds[number] = customerId
        return number
    }

    /// Applies a device's action at `date` (events due before it are applied first); the
    /// notifications to deliver and the transactions the device receives.
    public func perform(_ action: DeviceAction, customerId: String, at date: Date) throws -> LifecycleOutput {
        var output = try advance(to: date)
        self.output = LifecycleOutput()
        let customer = deviceCustomerNumber(customerId)
        switch action {
        case .buy(let productId, let token, let offer):
            guard let product = products[productId] else {
                throw DeviceRefusal(code: .productUnavailable, message: "\(productId) is not for sale")
            }
            if product.type == .autoRenewableSubscription {
                if let group = product.subscriptionGroupIdentifier,
                    store.subscriptions(ofCustomer: customerId).contains(where: {
                        $0.subscriptionGroupIdentifier == group && $0.revocationDate == nil && $0.expiresDate > date
                    })
                {
                    throw DeviceRefusal(code: .alreadySubscribed, message: "\(customerId) is already subscribed in \(group)")
                }
                try subscribe(customer, product: product, appAccountToken: token ?? newUUID(), at: date, offer: offer ?? "none")
            } else {
                if product.type == .nonConsumable,
                    store.transactions(ofCustomer: customerId).contains(where: { $0.productId == productId && $0.revocationDate == nil })
                {
                    throw DeviceRefusal(code: .alreadyOwned, message: "\(customerId) already owns \(productId)")
                }
                try buyOnce(customer, productId: productId, at: date, appAccountToken: token)
            }
        case .setAutoRenew(let productId, let on):
            try setAutoRenew(try chain(of: customerId, productId: productId, at: date), on: on, at: date)
        case .refund(let productId):
            try refund(try chain(of: customerId, productId: productId, at: date), at: date)
        }
        output.notifications += self.output.notifications
        output.purchases += self.output.purchases
        return output
    }

    /// A device's customer opens Apple's cancellation sheet for `productId`'s group at `date`
    /// (events due before it are applied first): the real-time request Apple sends the app, or
    /// nil when there is nothing renewing to cancel (the sheet asks nothing). Draws no dice: the
    /// request identifier is a fresh random UUID.
    public func openCancellationSheet(
        customerId: String, productId: String, at date: Date
    ) throws -> (output: LifecycleOutput, request: RetentionRequest?) {
        let output = try advance(to: date)
        let chain = try chain(of: customerId, productId: productId, at: date)
        guard let truth = store.subscription(chain), truth.revocationDate == nil, truth.autoRenewStatus, !truth.isInBillingRetryPeriod,
            date < truth.expiresDate
        else { return (output, nil) }
        let request = RetentionRequest(
            originalTransactionId: chain, customerId: customerId, productId: truth.productId,
            userLocale: Self.locale(of: storefront(ofChain: chain)), requestIdentifier: UUID().uuidString.lowercased(), date: date,
            token: tokens[chain] ?? 0)
        return (output, request)
    }

    /// The app answered a device's cancellation sheet (nil: it failed or refused) at `date` and
    /// the customer did what `decision` says: ``resolveRetention(_:answer:decision:)`` at that
    /// instant, after the events due before it.
    public func resolveCancellationSheet(
        _ request: RetentionRequest, answer: RealtimeResponseBody?, decision: RetentionDecision, at date: Date
    ) throws -> LifecycleOutput {
        var output = try advance(to: date)
        var current = request
        current.date = max(date, request.date)
        current.token = tokens[request.originalTransactionId] ?? 0
        let resolved = try resolveRetention(current, answer: answer, decision: decision)
        output.notifications += resolved.notifications
        output.purchases += resolved.purchases
        return output
    }

    /// The customer's current subscription in `productId`'s group.
    func chain(of customerId: String, productId: String, at date: Date) throws -> String {
        let group = products[productId]?.subscriptionGroupIdentifier
        guard
            let truth = store.subscriptions(ofCustomer: customerId).filter({
                $0.sharedFrom == nil && (group == nil || $0.subscriptionGroupIdentifier == group)
            }).max(by: { $0.expiresDate < $1.expiresDate })
        else {
            throw DeviceRefusal(code: .noSubscription, message: "\(customerId) has no subscription in the group of \(productId)")
        }
        return truth.originalTransactionId
    }
}
