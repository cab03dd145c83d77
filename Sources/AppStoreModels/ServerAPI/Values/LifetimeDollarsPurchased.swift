/// The customer's total in-app spending in your app, in USD bands (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct LifetimeDollarsPurchased: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Not declared.
    public static let undeclared = LifetimeDollarsPurchased(rawValue: 0)

    /// USD 0.
    public static let zeroDollars = LifetimeDollarsPurchased(rawValue: 1)

    /// USD 0.01-49.99.
    public static let oneCentToFortyNineDollarsAndNinetyNineCents = LifetimeDollarsPurchased(rawValue: 2)

    /// USD 50-99.99.
    public static let fiftyDollarsToNinetyNineDollarsAndNinetyNineCents = LifetimeDollarsPurchased(rawValue: 3)

    /// USD 100-499.99.
    public static let oneHundredDollarsToFourHundredNinetyNineDollarsAndNinetyNineCents =
        LifetimeDollarsPurchased(rawValue: 4)

    /// USD 500-999.99.
    public static let fiveHundredDollarsToNineHundredNinetyNineDollarsAndNinetyNineCents =
        LifetimeDollarsPurchased(rawValue: 5)

    /// USD 1000-1999.99.
    public static let oneThousandDollarsToOneThousandNineHundredNinetyNineDollarsAndNinetyNineCents =
        LifetimeDollarsPurchased(rawValue: 6)

    /// USD 2000 or more.
    public static let twoThousandDollarsOrGreater = LifetimeDollarsPurchased(rawValue: 7)

    public static let known: [LifetimeDollarsPurchased] = [
        .undeclared, .zeroDollars, .oneCentToFortyNineDollarsAndNinetyNineCents,
        .fiftyDollarsToNinetyNineDollarsAndNinetyNineCents,
        .oneHundredDollarsToFourHundredNinetyNineDollarsAndNinetyNineCents,
        .fiveHundredDollarsToNineHundredNinetyNineDollarsAndNinetyNineCents,
        .oneThousandDollarsToOneThousandNineHundredNinetyNineDollarsAndNinetyNineCents,
        .twoThousandDollarsOrGreater,
    ]
}
