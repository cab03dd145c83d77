/// A name from a set that may grow (a newer version may write names this one does not know,
/// and rows keep the names they were written with): a string with well-known constants, read
/// and written as the bare string.
public protocol OpenStringValue: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible
where RawValue == String {
    init(rawValue: String)
}

extension OpenStringValue {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public var description: String { rawValue }
}
