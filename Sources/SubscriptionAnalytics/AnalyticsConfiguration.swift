import Foundation

/// How an app's figures are reported: in which currency (with the exchange rates that bring
/// other currencies to it), in which time zone calendar intervals are cut, and whether Apple's
/// Small Business Program commission applies.
///
/// Configured per app as `"analytics": {"reportingCurrency": "USD", "exchangeRates": {"EUR":
/// 1.08}, "timeZone": "UTC", "smallBusiness": false}`; every key is optional and these are the
/// defaults. A rate is units of the reporting currency per unit of the other.
public struct AnalyticsConfiguration: Sendable, Hashable, Codable {
    public var reportingCurrency: String
    public var exchangeRates: [String: Decimal]
    public var timeZone: String
    public var smallBusiness: Bool

    public init(reportingCurrency: String = "USD", exchangeRates: [String: Decimal] = [:], timeZone: String = "UTC", smallBusiness: Bool = false) {
        self.reportingCurrency = reportingCurrency
        self.exchangeRates = exchangeRates
        self.timeZone = timeZone
        self.smallBusiness = smallBusiness
    }

    enum CodingKeys: String, CodingKey {
        case reportingCurrency, exchangeRates, timeZone, smallBusiness
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reportingCurrency = try container.decodeIfPresent(String.self, forKey: .reportingCurrency) ?? "USD"
        exchangeRates = try container.decodeIfPresent([String: Decimal].self, forKey: .exchangeRates) ?? [:]
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone) ?? "UTC"
        smallBusiness = try container.decodeIfPresent(Bool.self, forKey: .smallBusiness) ?? false
    }

    /// Why the configuration cannot be used, or `nil`: currencies are three capital letters,
    /// rates positive, the time zone one the system knows.
    public var problem: String? {
        guard Self.isCurrencyCode(reportingCurrency) else { return "reportingCurrency must be an ISO 4217 code such as USD" }
        for (currency, rate) in exchangeRates.sorted(by: { $0.key < $1.key }) {
            guard Self.isCurrencyCode(currency) else { return "exchangeRates: \(currency) is not an ISO 4217 code" }
            guard rate > 0 else { return "exchangeRates: the rate of \(currency) must be positive" }
        }
        guard TimeZone(identifier: timeZone) != nil else { return "timeZone \(timeZone) is not a known time zone" }
        return nil
    }

    static func isCurrencyCode(_ text: String) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}
