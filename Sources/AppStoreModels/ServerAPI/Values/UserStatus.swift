/// The state of the customer's account with your app (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct UserStatus: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Not declared.
    public static let undeclared = UserStatus(rawValue: 0)

    /// Active.
    public static let active = UserStatus(rawValue: 1)

    /// Suspended.
    public static let suspended = UserStatus(rawValue: 2)

    /// Terminated.
    public static let terminated = UserStatus(rawValue: 3)

    /// Limited access.
    public static let limitedAccess = UserStatus(rawValue: 4)

    public static let known: [UserStatus] = [
        .undeclared, .active, .suspended, .terminated, .limitedAccess,
    ]
}
