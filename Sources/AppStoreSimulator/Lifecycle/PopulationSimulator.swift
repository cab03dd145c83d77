import AppStoreModels
import Foundation

/// Runs a population of simulated customers through their subscriptions and purchases: the
/// simulated App Store's truth.
///
/// ``advance(to:)`` applies every event due up to an instant in time order, writing transactions,
/// subscription truths and the notification history into the ``SimulatedAppStore``, and returns
/// the notifications to deliver and the purchases the customers' devices report. Every choice
/// comes from the configuration's seed, so a run is reproducible. Not thread-safe: one task
/// drives it.
public final class PopulationSimulator {
    public let configuration: PopulationConfiguration
    public let store: SimulatedAppStore
    public let signer: SimulatorSigner
    let products: [String: SimulatedProduct]
    var behaviour: PopulationBehaviour { configuration.behaviour }
    var random: SeededRandom
    var queue = EventQueue()
    var output = LifecycleOutput()
    var nextTransaction: Int64
    /// Per chain: bumped at every new period or lapse, so events of an old period are ignored.
    var tokens: [String: Int] = [:]
    /// Per purchaser chain: its family members' chains.
    var familyMembers: [String: [String]] = [:]
    /// Per chain: the customer number, for customer ids.
    var chainCustomers: [String: Int] = [:]
    var currentInstant: Date
    /// Builds the V1 body of each notification too, when the app also listens to V1.
    public var v1Builder: NotificationV1Builder?
    /// Whether notifications and the devices' purchases carry signed data (off: records with an
    /// empty payload, for runs that only need the truth, such as seeding a benchmark's database).
    public var signsData = true
    /// The retention dice, apart from the population's, so runs that never ask keep their draws.
    var retentionRandom: SeededRandom
    /// The commitment-plan dice, apart too.
    var commitmentRandom: SeededRandom
    /// Per chain, what its customer saw on each cancellation sheet and whether they stayed.
    public internal(set) var retentionOutcomes: [String: [RetentionOutcome]] = [:]
    /// Events applied so far.
    public private(set) var eventsApplied = 0

    /// A population whose customers are numbered from `firstCustomer` and whose transaction ids
    /// follow `transactionsAfter`: populations simulated one slice at a time (each with its own
    /// seed, numbers and id range) then never share a customer id or a transaction id.
    public init(
        configuration: PopulationConfiguration, store: SimulatedAppStore, signer: SimulatorSigner, firstCustomer: Int = 0,
        transactionsAfter: Int64 = 2_000_000_000_000_000
    ) {
        self.configuration = configuration
        self.store = store
        self.signer = signer
        self.products = Dictionary(configuration.products.map { ($0.productId, $0) }, uniquingKeysWith: { first, _ in first })
        self.random = SeededRandom.derived(seed: configuration.seed, "population")
        self.retentionRandom = SeededRandom.derived(seed: configuration.seed, "retention")
        self.commitmentRandom = SeededRandom.derived(seed: configuration.seed, "commitment")
        self.currentInstant = configuration.start
        self.nextTransaction = transactionsAfter
        self.arrivals = firstCustomer..<(firstCustomer + max(0, configuration.customers))
        let window = max(1, configuration.days * configuration.arrivalShare * 86_400)
        for customer in 0..<max(0, configuration.customers) {
            let offset = (Double(customer) + Double.random(in: 0..<1, using: &random)) / Double(max(1, configuration.customers)) * window
            queue.schedule(.arrive(customer: firstCustomer + customer), at: configuration.start.addingTimeInterval(offset.rounded()))
        }
    }

    /// The number of the last transaction id handed out.
    public var lastTransactionNumber: Int64 { nextTransaction }

    /// The instant the simulator has advanced to.
    public var simulatedInstant: Date { currentInstant }

    /// The instant of the next event, if any.
    public var nextEventDate: Date? { queue.nextDate }

    /// Applies every event due at or before `instant`.
    public func advance(to instant: Date) throws -> LifecycleOutput {
        output = LifecycleOutput()
        while let (date, event) = queue.popDue(by: instant) {
            currentInstant = date
            try apply(event, at: date)
            eventsApplied += 1
            // A cancellation sheet waits for the app's answer before anything later happens.
            if !output.retentionRequests.isEmpty { return output }
        }
        currentInstant = max(currentInstant, instant)
        return output
    }

    /// Names of scripted customers, by number.
    var customerNames: [Int: String] = [:]
    /// The app account tokens the customers' apps hold (issued by the app's server), by customer
    /// id: their purchases carry them. A customer without one buys with a token of its own.
    public var appAccountTokens: [String: String] = [:]
    /// The numbers of the customers who arrive by themselves.
    let arrivals: Range<Int>
    /// Customers that simulated devices named, by number, and their numbers by id.
    var deviceCustomerIds: [Int: String] = [:]
    var deviceCustomerNumbers: [String: Int] = [:]
    /// Scripted outcomes that override the dice: billing recovery per chain, price-increase consent.
    var forcedBilling: [String: String] = [:]
    var forcedConsent: [String: Bool] = [:]

    /// The ids of every customer the population will have (arrivals and scripted customers), so
    /// their apps can be given their app account tokens before they buy.
    public var plannedCustomerIds: [String] {
        arrivals.map(customerId) + customerNames.keys.sorted().map(customerId)
    }

    /// The token customer `number`'s purchases carry: its app's, else `made`.
    func appAccountToken(of number: Int, made: String) -> String {
        appAccountTokens[customerId(number)] ?? made
    }

    /// The app's id of a customer (what its server knows the customer by).
    public func customerId(_ number: Int) -> String {
        if let exact = deviceCustomerIds[number] { return exact }
        return customerNames[number].map { "customer-\($0)" } ?? "customer-\(number)"
    }

    private func apply(_ event: LifecycleEvent, at date: Date) throws {
        switch event {
        case .arrive(let customer): try arrive(customer, at: date)
        case .renew(let chain, let due): try renew(chain, due: due, at: date)
        case .billingOutcome(let chain, let token, let recovered):
            guard tokens[chain] == token else { return }
            try finishBillingRetry(chain, recovered: recovered, at: date)
        case .graceExpired(let chain, let token):
            guard tokens[chain] == token, let truth = store.subscription(chain), truth.isInBillingRetryPeriod else { return }
            try notify(.gracePeriodExpired, nil, chain: chain, at: date)
        case .autoRenew(let chain, let token, let on):
            guard tokens[chain] == token else { return }
            if on { try setAutoRenew(chain, on: true, at: date) } else { try cancelOrAsk(chain, token: token, at: date) }
        case .refund(let chain, let token):
            guard tokens[chain] == token else { return }
            try refund(chain, at: date)
        case .changePlan(let chain, let token, let productId):
            guard tokens[chain] == token else { return }
            try changePlan(chain, to: productId, at: date)
        case .priceIncrease(let chain, let token):
            guard tokens[chain] == token else { return }
            try announcePriceIncrease(chain, at: date)
        case .priceConsent(let chain, let token):
            guard tokens[chain] == token else { return }
            try consentToPriceIncrease(chain, at: date)
        case .winBack(let chain, let token):
            guard tokens[chain] == token else { return }
            try winBack(chain, at: date)
        case .oneTime(let customer, let productId): try buyOnce(customer, productId: productId, at: date)
        case .scripted(let customer, let action): try perform(action, customer: customer, at: date)
        case .consumptionRequest(let transactionId): try requestConsumption(transactionId, at: date)
        case .refundDecision(let transactionId, let refunded): try decideRefund(transactionId, refunded: refunded, at: date)
        }
    }

    // MARK: Shared pieces

    /// The end of a period of `product` from `start` (compressed like the sandbox when configured).
    func periodEnd(_ product: SimulatedProduct, from start: Date) -> Date {
        guard configuration.sandboxDurations else { return product.periodEnd(from: start) }
        return start.addingTimeInterval(SimulatedProduct.sandboxSeconds(of: product.period ?? "P1M"))
    }

    /// The end of a commitment's monthly payment that starts at `start`.
    func monthEnd(from start: Date) -> Date {
        guard configuration.sandboxDurations else { return SimulatedProduct.add("P1M", to: start) }
        return start.addingTimeInterval(SimulatedProduct.sandboxSeconds(of: "P1M"))
    }

    /// The end of a 12-month commitment that starts at `start` (its 12th payment's expiry).
    func commitmentEnd(from start: Date) -> Date {
        var end = start
        for _ in 0..<12 { end = monthEnd(from: end) }
        return end
    }

    /// The end of a free trial of `days` from `start`.
    func trialEnd(days: Int, from start: Date) -> Date {
        guard configuration.sandboxDurations else { return start.addingTimeInterval(Double(days) * 86_400) }
        return start.addingTimeInterval(SimulatedProduct.sandboxSeconds(of: "P\(days)D"))
    }

    /// The storefront customer number `customer` buys in.
    func storefront(ofCustomer customer: Int) -> SimulatedStorefront {
        SimulatedStorefront.of(customer: customer, among: configuration.storefronts, seed: configuration.seed)
    }

    /// The storefront of a chain's purchaser (a family member's copy sits in the purchaser's).
    func storefront(ofChain chain: String) -> SimulatedStorefront {
        let purchaserChain = store.subscription(chain)?.sharedFrom ?? chain
        return chainCustomers[purchaserChain].map(storefront(ofCustomer:)) ?? configuration.storefronts.first ?? .unitedStates
    }

    func newTransactionId() -> String {
        nextTransaction += 1
        return String(nextTransaction)
    }

    func newUUID() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString.lowercased()
    }

    /// A whole-second instant uniformly inside `(start, end)`, or nil when the span is under two seconds.
    func randomInstant(after start: Date, before end: Date) -> Date? {
        let span = Int(end.timeIntervalSince(start))
        guard span >= 2 else { return nil }
        return start.addingTimeInterval(Double(Int.random(in: 1..<span, using: &random)))
    }

    func bump(_ chain: String) -> Int {
        let token = (tokens[chain] ?? 0) + 1
        tokens[chain] = token
        return token
    }

    /// Signs, records and queues a notification about a chain (its latest transaction and
    /// renewal info), and mirrors it to the chain's family members.
    func notify(
        _ type: NotificationTypeV2, _ subtype: Subtype?, chain: String, at date: Date, transaction: JWSTransactionDecodedPayload? = nil
    ) throws {
        guard let truth = store.subscription(chain) else { return }
        let subject = transaction ?? store.transaction(id: truth.lastTransactionId)
        try emit(type, subtype, transaction: subject, subscription: truth, at: date)
    }

    /// Signs, records and queues one notification.
    func emit(
        _ type: NotificationTypeV2, _ subtype: Subtype?, transaction: JWSTransactionDecodedPayload?, subscription: SubscriptionTruth?,
        at date: Date, reason: ConsumptionRequestReason? = nil
    ) throws {
        let uuid = newUUID()
        let signed =
            !signsData
            ? ""
            : try signer.signNotification(
                type: type, subtype: subtype, uuid: uuid, transaction: transaction, subscription: subscription, store: store,
                signedDate: date, consumptionRequestReason: reason)
        let v1Body =
            !signsData
            ? nil : try v1Builder?.body(type: type, subtype: subtype, transaction: transaction, subscription: subscription, store: store, at: date)
        let record = NotificationRecord(
            notificationUUID: uuid, notificationType: type, subtype: subtype,
            originalTransactionId: transaction?.originalTransactionId ?? subscription?.originalTransactionId,
            transactionId: transaction?.transactionId, firstSendDate: date, signedPayload: signed, v1Body: v1Body)
        store.recordNotification(record)
        output.notifications.append(record)
    }

    /// Reports a transaction the customer's device received to the app's server.
    func reportPurchase(_ transaction: JWSTransactionDecodedPayload, customer: Int, at date: Date) throws {
        guard let id = transaction.transactionId, let chain = transaction.originalTransactionId, let product = transaction.productId else { return }
        output.purchases.append(
            DevicePurchase(
                customerId: customerId(customer), appAccountToken: transaction.appAccountToken, transactionId: id,
                originalTransactionId: chain, productId: product,
                signedTransaction: signsData ? try signer.signTransaction(transaction, signedDate: date) : "",
                date: date))
    }

    /// A transaction of this app for `product`, priced for `storefront` unless `price` (in the
    /// storefront's currency) says otherwise.
    func makeTransaction(
        product: SimulatedProduct, originalTransactionId: String?, purchaseDate: Date, originalPurchaseDate: Date?, expiresDate: Date?,
        reason: TransactionReason, appAccountToken: String?, ownership: InAppOwnershipType = .purchased, storefront: SimulatedStorefront,
        price: Int64? = nil
    ) -> JWSTransactionDecodedPayload {
        let local = product.price(in: storefront)
        let id = newTransactionId()
        var transaction = JWSTransactionDecodedPayload()
        transaction.transactionId = id
        transaction.originalTransactionId = originalTransactionId ?? id
        transaction.bundleId = store.bundleId
        transaction.productId = product.productId
        transaction.subscriptionGroupIdentifier = product.subscriptionGroupIdentifier
        transaction.purchaseDate = purchaseDate
        transaction.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
        transaction.expiresDate = expiresDate
        transaction.quantity = 1
        transaction.type = product.type
        transaction.appAccountToken = appAccountToken
        transaction.inAppOwnershipType = ownership
        transaction.environment = store.environment
        transaction.storefront = storefront.country
        transaction.storefrontId = storefront.id
        transaction.transactionReason = reason
        transaction.currency = local.currency
        transaction.price = price ?? local.milliunits
        if product.type == .autoRenewableSubscription { transaction.webOrderLineItemId = String(Int64(id).map { $0 + 1 } ?? 0) }
        return transaction
    }
}
