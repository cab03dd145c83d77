/// The customer's total refunds in your app, in USD bands (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct LifetimeDollarsRefunded: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Not declared.
    public static let undeclared = LifetimeDollarsRefunded(rawValue: 0)

    /// USD 0.
    public static let zeroDollars = LifetimeDollarsRefunded(rawValue: 1)

    /// USD 0.01-49.99.
    public static let oneCentToFortyNineDollarsAndNinetyNineCents = LifetimeDollarsRefunded(rawValue: 2)

    /// USD 50-99.99.
    public static let fiftyDollarsToNinetyNineDollarsAndNinetyNineCents = LifetimeDollarsRefunded(rawValue: 3)

    /// USD 100-499.99.
    public static let oneHundredDollarsToFourHundredNinetyNineDollarsAndNinetyNineCents =
        LifetimeDollarsRefunded(rawValue: 4)

    /// USD 500-999.99.
    public static let fiveHundredDollarsToNineHundredNinetyNineDollarsAndNinetyNineCents =
        LifetimeDollarsRefunded(rawValue: 5)

    /// USD 1000-1999.99.
    public static let oneThousandDollarsToOneThousandNineHundredNinetyNineDollarsAndNinetyNineCents =
        LifetimeDollarsRefunded(rawValue: 6)

    /// USD 2000 or more.
    public static let twoThousandDollarsOrGreater = LifetimeDollarsRefunded(rawValue: 7)

    public static let known: [LifetimeDollarsRefunded] = [
        .undeclared, .zeroDollars, .oneCentToFortyNineDollarsAndNinetyNineCents,
        .fiftyDollarsToNinetyNineDollarsAndNinetyNineCents,
        .oneHundredDollarsToFourHundredNinetyNineDollarsAndNinetyNineCents,
        .fiveHundredDollarsToNineHundredNinetyNineDollarsAndNinetyNineCents,
        .oneThousandDollarsToOneThousandNineHundredNinetyNineDollarsAndNinetyNineCents,
        .twoThousandDollarsOrGreater,
    ]
}
