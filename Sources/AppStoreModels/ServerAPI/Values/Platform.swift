/// The platform on which the customer consumed the purchase (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct Platform: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Not declared.
    public static let undeclared = Platform(rawValue: 0)

    /// An Apple platform.
    public static let apple = Platform(rawValue: 1)

    /// A non-Apple platform.
    public static let nonApple = Platform(rawValue: 2)

    public static let known: [Platform] = [
        .undeclared, .apple, .nonApple,
    ]
}
