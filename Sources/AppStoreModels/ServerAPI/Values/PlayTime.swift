/// How long the customer used the app (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct PlayTime: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Not declared.
    public static let undeclared = PlayTime(rawValue: 0)

    /// 0-5 minutes.
    public static let zeroToFiveMinutes = PlayTime(rawValue: 1)

    /// 5-60 minutes.
    public static let fiveToSixtyMinutes = PlayTime(rawValue: 2)

    /// 1-6 hours.
    public static let oneToSixHours = PlayTime(rawValue: 3)

    /// 6-24 hours.
    public static let sixHoursToTwentyFourHours = PlayTime(rawValue: 4)

    /// 1-4 days.
    public static let oneDayToFourDays = PlayTime(rawValue: 5)

    /// 4-16 days.
    public static let fourDaysToSixteenDays = PlayTime(rawValue: 6)

    /// More than 16 days.
    public static let overSixteenDays = PlayTime(rawValue: 7)

    public static let known: [PlayTime] = [
        .undeclared, .zeroToFiveMinutes, .fiveToSixtyMinutes, .oneToSixHours, .sixHoursToTwentyFourHours,
        .oneDayToFourDays, .fourDaysToSixteenDays, .overSixteenDays,
    ]
}
