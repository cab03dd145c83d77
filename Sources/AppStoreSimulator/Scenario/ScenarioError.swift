/// A scenario file that cannot run.
public struct ScenarioError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
