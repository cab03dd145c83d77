import AppStoreModels
import Foundation

extension PopulationBehaviour {
    /// No random events at all: only what a scenario scripts happens (trials convert unless
    /// the script cancels them).
    public static var scripted: PopulationBehaviour {
        var behaviour = PopulationBehaviour()
        behaviour.subscribeRate = 0
        behaviour.trialConversion = 1
        behaviour.churnRate = 0
        behaviour.billingFailureRate = 0
        behaviour.refundRate = 0
        behaviour.upgradeRate = 0
        behaviour.downgradeRate = 0
        behaviour.crossgradeRate = 0
        behaviour.familySharingRate = 0
        behaviour.priceIncreaseRate = 0
        behaviour.offerCodeRate = 0
        behaviour.winBackRate = 0
        behaviour.consumableRate = 0
        behaviour.nonConsumableRate = 0
        behaviour.nonRenewingRate = 0
        behaviour.consumableRefundRequestRate = 0
        return behaviour
    }
}

extension PopulationSimulator {
    /// A simulator that runs exactly a scenario's script from `start`.
    public convenience init(
        scenario: Scenario, start: Date, store: SimulatedAppStore, signer: SimulatorSigner, seed: UInt64 = 1, sandboxDurations: Bool = false
    ) {
        var behaviour = PopulationBehaviour.scripted
        if let grace = scenario.gracePeriodDays { behaviour.gracePeriodDays = grace }
        self.init(
            configuration: PopulationConfiguration(
                customers: 0, start: start, days: scenario.days, seed: seed, behaviour: behaviour,
                products: scenario.products ?? SimulatedProduct.demoCatalog, sandboxDurations: sandboxDurations),
            store: store, signer: signer)
        for (number, customer) in scenario.customers.enumerated() {
            customerNames[number] = customer.name
            for action in customer.actions {
                queue.schedule(.scripted(customer: number, action: action), at: start.addingTimeInterval((action.day * 86_400).rounded()))
            }
        }
    }

    /// The subscription a scripted customer bought (or, with `family`, its family member's copy).
    public func subscription(ofCustomerNamed name: String, family: Bool = false) -> SubscriptionTruth? {
        guard let number = customerNames.first(where: { $0.value == name })?.key else { return nil }
        let id = customerId(number)
        let own = store.subscriptions(ofCustomer: id).first { $0.sharedFrom == nil }
        guard family else { return own }
        return own.flatMap { chain in store.subscriptions().first { $0.sharedFrom == chain.originalTransactionId } }
    }

    /// Applies one scripted action.
    func perform(_ action: ScenarioAction, customer: Int, at date: Date) throws {
        if let productId = action.subscribe, let product = products[productId] {
            try subscribe(
                customer, product: product, appAccountToken: appAccountToken(of: customer, made: newUUID()), at: date, offer: action.offer ?? "none")
            return
        }
        if let productId = action.buy {
            try buyOnce(customer, productId: productId, at: date)
            return
        }
        guard let chain = store.subscriptions(ofCustomer: customerId(customer)).first(where: { $0.sharedFrom == nil })?.originalTransactionId else {
            return
        }
        if action.cancel == true { try setAutoRenew(chain, on: false, at: date) }
        if action.resume == true { try setAutoRenew(chain, on: true, at: date) }
        if let plan = action.failBilling { forcedBilling[chain] = plan }
        if action.refund == true { try refund(chain, at: date) }
        if let productId = action.changePlan { try changePlan(chain, to: productId, at: date) }
        if action.priceIncrease == true {
            forcedConsent[chain] = action.consent ?? false
            try announcePriceIncrease(chain, at: date)
        }
        if action.familyShare == true { try shareWithFamily(chain, at: date) }
        if action.winBack == true { try winBack(chain, at: date) }
    }
}
