import Foundation

/// What population to simulate: how many customers, over which span, with which products and
/// behaviour, from which seed.
public struct PopulationConfiguration: Sendable, Hashable, Codable {
    /// How many customers (Apple accounts) arrive.
    public var customers: Int
    /// The first instant of the simulation.
    public var start: Date
    /// How long the simulation runs, in days.
    public var days: Double
    /// Customers arrive uniformly over this share of the run.
    public var arrivalShare: Double
    /// The seed of every random choice: the same seed gives the same run.
    public var seed: UInt64
    public var behaviour: PopulationBehaviour
    public var products: [SimulatedProduct]
    /// Renewal periods and trials as short as Apple's sandbox makes them (a month in 5 minutes),
    /// for runs on a wall clock.
    public var sandboxDurations: Bool = false
    /// Where the customers live (each customer's storefront is drawn from these shares).
    public var storefronts: [SimulatedStorefront] = [.unitedStates]
    /// Whether a customer about to cancel sees a retention message the app chooses (Apple's
    /// Retention Messaging real-time request): ``LifecycleOutput/retentionRequests``.
    public var asksRetention: Bool?

    public init(
        customers: Int, start: Date, days: Double, arrivalShare: Double = 0.75, seed: UInt64 = 1,
        behaviour: PopulationBehaviour = PopulationBehaviour(), products: [SimulatedProduct] = SimulatedProduct.demoCatalog,
        sandboxDurations: Bool = false, storefronts: [SimulatedStorefront] = [.unitedStates]
    ) {
        self.storefronts = storefronts
        self.sandboxDurations = sandboxDurations
        self.customers = customers
        self.start = start
        self.days = days
        self.arrivalShare = arrivalShare
        self.seed = seed
        self.behaviour = behaviour
        self.products = products
    }

    /// The last instant of the simulation.
    public var end: Date { start.addingTimeInterval(days * 86_400) }
}
