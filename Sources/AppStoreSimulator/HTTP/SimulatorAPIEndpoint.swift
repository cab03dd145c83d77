/// One App Store Server API endpoint the simulator serves: its name (the rate-limit bucket) and
/// Apple's production rate limit in requests per second (APPLE.md §3.1).
struct SimulatorAPIEndpoint: Hashable, Sendable {
    var name: String
    var rate: Double

    static let getTransactionInfo = Self(name: "getTransactionInfo", rate: 50)
    static let getTransactionHistory = Self(name: "getTransactionHistory", rate: 50)
    static let getAllSubscriptionStatuses = Self(name: "getAllSubscriptionStatuses", rate: 50)
    static let getAppTransactionInfo = Self(name: "getAppTransactionInfo", rate: 50)
    static let finishTransaction = Self(name: "finishTransaction", rate: 50)
    static let sendConsumptionInformation = Self(name: "sendConsumptionInformation", rate: 50)
    static let sendConsumptionData = Self(name: "sendConsumptionData", rate: 50)
    static let getNotificationHistory = Self(name: "getNotificationHistory", rate: 50)
    static let extendSubscriptionRenewalDate = Self(name: "extendSubscriptionRenewalDate", rate: 20)
    static let setAppAccountToken = Self(name: "setAppAccountToken", rate: 20)
    static let lookUpOrderId = Self(name: "lookUpOrderId", rate: 10)
    static let getRefundHistory = Self(name: "getRefundHistory", rate: 10)
    static let massExtendRenewalDate = Self(name: "extendRenewalDateForAllActiveSubscribers", rate: 1)
    /// Apple publishes no limit; the simulator uses 1 request per second.
    static let massExtendStatus = Self(name: "getStatusOfSubscriptionRenewalDateExtensions", rate: 1)
    static let requestTestNotification = Self(name: "requestTestNotification", rate: 1)
    static let getTestNotificationStatus = Self(name: "getTestNotificationStatus", rate: 1)
}
