import Foundation

extension Date {
    /// Seconds between 1970-01-01 and 2001-01-01, Foundation's reference date, in milliseconds.
    private static let referenceDateOffsetMilliseconds: Double = 978_307_200_000

    /// Differences below this (one microsecond) are floating-point noise, not a sub-millisecond part.
    private static let wholeMillisecondTolerance: Double = 0.001

    /// Creates a date from Apple's timestamp format: milliseconds since 1970-01-01 UTC.
    ///
    /// Accepts fractional milliseconds, which StoreKit Testing in Xcode emits
    /// (for example `1697679936049.7297`).
    public init(appStoreMilliseconds milliseconds: Double) {
        // Subtracting the offset in the millisecond domain first keeps whole-millisecond inputs exact.
        self.init(timeIntervalSinceReferenceDate: (milliseconds - Self.referenceDateOffsetMilliseconds) / 1000)
    }

    /// Creates a date from whole milliseconds since 1970-01-01 UTC.
    public init(appStoreMilliseconds milliseconds: Int64) {
        self.init(appStoreMilliseconds: Double(milliseconds))
    }

    /// Milliseconds since 1970-01-01 UTC, possibly fractional, exactly as they would appear in a payload.
    ///
    /// Floating-point noise is removed: a date created from whole milliseconds gives back
    /// exactly that whole number.
    public var appStoreMillisecondsValue: Double {
        let milliseconds = timeIntervalSinceReferenceDate * 1000 + Self.referenceDateOffsetMilliseconds
        let nearest = milliseconds.rounded()
        return abs(milliseconds - nearest) < Self.wholeMillisecondTolerance ? nearest : milliseconds
    }

    /// Whole milliseconds since 1970-01-01 UTC, with any sub-millisecond part truncated toward zero,
    /// as the App Store Server API expects in requests and query parameters.
    ///
    /// Dates beyond the `Int64` range clamp to its bounds.
    public var appStoreMilliseconds: Int64 {
        let whole = appStoreMillisecondsValue.rounded(.towardZero)
        if whole.isNaN { return 0 }
        if whole >= 9.2e18 { return .max }
        if whole <= -9.2e18 { return .min }
        return Int64(whole)
    }
}
