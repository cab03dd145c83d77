/// The age of the customer's account with your app (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AccountTenure: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Not declared.
    public static let undeclared = AccountTenure(rawValue: 0)

    /// 0-3 days.
    public static let zeroToThreeDays = AccountTenure(rawValue: 1)

    /// 3-10 days.
    public static let threeDaysToTenDays = AccountTenure(rawValue: 2)

    /// 10-30 days.
    public static let tenDaysToThirtyDays = AccountTenure(rawValue: 3)

    /// 30-90 days.
    public static let thirtyDaysToNinetyDays = AccountTenure(rawValue: 4)

    /// 90-180 days.
    public static let ninetyDaysToOneHundredEightyDays = AccountTenure(rawValue: 5)

    /// 180-365 days.
    public static let oneHundredEightyDaysToThreeHundredSixtyFiveDays = AccountTenure(rawValue: 6)

    /// More than 365 days.
    public static let greaterThanThreeHundredSixtyFiveDays = AccountTenure(rawValue: 7)

    public static let known: [AccountTenure] = [
        .undeclared, .zeroToThreeDays, .threeDaysToTenDays, .tenDaysToThirtyDays, .thirtyDaysToNinetyDays,
        .ninetyDaysToOneHundredEightyDays, .oneHundredEightyDaysToThreeHundredSixtyFiveDays,
        .greaterThanThreeHundredSixtyFiveDays,
    ]
}
