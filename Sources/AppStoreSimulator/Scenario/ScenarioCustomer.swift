/// One scripted customer.
public struct ScenarioCustomer: Sendable, Hashable, Codable {
    public var name: String
    public var actions: [ScenarioAction]

    public init(name: String, actions: [ScenarioAction]) {
        self.name = name
        self.actions = actions
    }
}
