import AppStoreModels
import AppStoreSimulator
import Foundation
import Testing

@Suite("Population: monthly plans with a 12-month commitment")
struct PopulationCommitmentTests {
    /// Customers who all take the yearly product's monthly plan, over 30 months.
    static func run(churn: Double) throws -> SimulatedAppStore {
        var behaviour = PopulationBehaviour()
        behaviour.commitmentPlanRate = 1
        behaviour.trialRate = 0
        behaviour.offerCodeRate = 0
        behaviour.churnRate = churn
        behaviour.reenableRate = 0
        behaviour.billingFailureRate = 0
        behaviour.refundRate = 0
        behaviour.winBackRate = 0
        let yearly = try #require(SimulatedProduct.demoCatalog.first { $0.productId == "premium.yearly" })
        let configuration = PopulationConfiguration(
            customers: 12, start: PopulationSimulatorTests.start, days: 900, arrivalShare: 0.01, seed: 3, behaviour: behaviour, products: [yearly])
        let store = SimulatedAppStore(bundleId: "com.example.sim", appAppleId: 42, environment: .production)
        let simulator = PopulationSimulator(configuration: configuration, store: store, signer: PopulationSimulatorTests.signer)
        var instant = configuration.start
        while instant < configuration.end {
            instant = min(configuration.end, instant.addingTimeInterval(86_400))
            _ = try simulator.advance(to: instant)
        }
        return store
    }

    static func payments(_ store: SimulatedAppStore, chain: String) -> [JWSTransactionDecodedPayload] {
        store.allTransactions().map(\.transaction).filter { $0.originalTransactionId == chain }
            .sorted { ($0.purchaseDate ?? .distantPast) < ($1.purchaseDate ?? .distantPast) }
    }

    @Test("a commitment is 12 monthly payments of the yearly product, numbered 1 to 12 with the commitment's price and end, then a new commitment")
    func paymentsAndRenewal() throws {
        let store = try Self.run(churn: 0)
        let chain = try #require(store.subscriptions().first)
        let payments = Self.payments(store, chain: chain.originalTransactionId)
        #expect(payments.count >= 24, "two commitments in 30 months")
        for (index, payment) in payments.prefix(24).enumerated() {
            #expect(payment.productId == "premium.yearly" && payment.billingPlanType == .monthly)
            #expect(payment.commitmentInfo?.billingPeriodNumber == Int32(index % 12 + 1))
            #expect(payment.commitmentInfo?.totalBillingPeriods == 12)
            #expect(payment.commitmentInfo?.commitmentPrice == (payment.price ?? 0) * 12)
            let days = (payment.expiresDate ?? .distantPast).timeIntervalSince(payment.purchaseDate ?? .distantFuture) / 86_400
            #expect((28...31).contains(days), "a month's payment")
        }
        #expect(payments[11].commitmentInfo?.commitmentExpiresDate == payments[11].expiresDate)
        #expect(payments[12].commitmentInfo?.commitmentExpiresDate != payments[11].commitmentInfo?.commitmentExpiresDate)
    }

    @Test("a customer who cancels during a commitment keeps paying every month until its last payment, then the subscription expires")
    func cancellationWaitsForTheEnd() throws {
        let store = try Self.run(churn: 1)
        for truth in store.subscriptions() {
            let payments = Self.payments(store, chain: truth.originalTransactionId)
            #expect(payments.count == 12, "\(truth.originalTransactionId): \(payments.count) payments")
            #expect(!truth.autoRenewStatus && !truth.willAutoRenew && truth.commitment == nil)
            #expect(truth.status(at: PopulationSimulatorTests.start.addingTimeInterval(900 * 86_400)) == .expired)
        }
    }
}
