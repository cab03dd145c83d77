/// One App Store Server API endpoint: its name (the rate-budget key), HTTP method and Apple's
/// production rate limit.
///
/// Rates are Apple's published per-app limits in requests per second. Where Apple publishes
/// none (Get Status of Renewal Date Extensions, the Retention Messaging endpoints) a
/// conservative rate is used; ``RateBudget/Configuration`` overrides any of them.
public struct APIEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// A stable name, e.g. `getTransactionInfo`.
    public var name: String
    /// The HTTP method.
    public var method: String
    /// Requests per second allowed in production.
    public var productionRate: Double

    public init(name: String, method: String, productionRate: Double) {
        self.name = name
        self.method = method
        self.productionRate = productionRate
    }

    public var description: String { name }

    public static let getTransactionInfo = APIEndpoint(name: "getTransactionInfo", method: "GET", productionRate: 50)
    public static let getTransactionHistory = APIEndpoint(name: "getTransactionHistory", method: "GET", productionRate: 50)
    public static let getAllSubscriptionStatuses = APIEndpoint(name: "getAllSubscriptionStatuses", method: "GET", productionRate: 50)
    public static let getAppTransactionInfo = APIEndpoint(name: "getAppTransactionInfo", method: "GET", productionRate: 50)
    public static let finishTransaction = APIEndpoint(name: "finishTransaction", method: "POST", productionRate: 50)
    public static let sendConsumptionInformation = APIEndpoint(name: "sendConsumptionInformation", method: "PUT", productionRate: 50)
    public static let sendConsumptionData = APIEndpoint(name: "sendConsumptionData", method: "PUT", productionRate: 50)
    public static let getNotificationHistory = APIEndpoint(name: "getNotificationHistory", method: "POST", productionRate: 50)
    public static let extendSubscriptionRenewalDate = APIEndpoint(name: "extendSubscriptionRenewalDate", method: "PUT", productionRate: 20)
    public static let setAppAccountToken = APIEndpoint(name: "setAppAccountToken", method: "PUT", productionRate: 20)
    public static let lookUpOrderId = APIEndpoint(name: "lookUpOrderId", method: "GET", productionRate: 10)
    public static let getRefundHistory = APIEndpoint(name: "getRefundHistory", method: "GET", productionRate: 10)
    public static let extendRenewalDateForAllActiveSubscribers = APIEndpoint(
        name: "extendRenewalDateForAllActiveSubscribers", method: "POST", productionRate: 1)
    public static let getStatusOfSubscriptionRenewalDateExtensions = APIEndpoint(
        name: "getStatusOfSubscriptionRenewalDateExtensions", method: "GET", productionRate: 1)
    public static let requestTestNotification = APIEndpoint(name: "requestTestNotification", method: "POST", productionRate: 1)
    public static let getTestNotificationStatus = APIEndpoint(name: "getTestNotificationStatus", method: "GET", productionRate: 1)

    public static let uploadImage = APIEndpoint(name: "uploadImage", method: "PUT", productionRate: 1)
    public static let deleteImage = APIEndpoint(name: "deleteImage", method: "DELETE", productionRate: 1)
    public static let getImageList = APIEndpoint(name: "getImageList", method: "GET", productionRate: 1)
    public static let uploadMessage = APIEndpoint(name: "uploadMessage", method: "PUT", productionRate: 1)
    public static let deleteMessage = APIEndpoint(name: "deleteMessage", method: "DELETE", productionRate: 1)
    public static let getMessageList = APIEndpoint(name: "getMessageList", method: "GET", productionRate: 1)
    public static let configureDefaultMessage = APIEndpoint(name: "configureDefaultMessage", method: "PUT", productionRate: 1)
    public static let deleteDefaultMessage = APIEndpoint(name: "deleteDefaultMessage", method: "DELETE", productionRate: 1)
    public static let getDefaultMessage = APIEndpoint(name: "getDefaultMessage", method: "GET", productionRate: 1)
    public static let configureRealtimeURL = APIEndpoint(name: "configureRealtimeURL", method: "PUT", productionRate: 1)
    public static let deleteRealtimeURL = APIEndpoint(name: "deleteRealtimeURL", method: "DELETE", productionRate: 1)
    public static let getRealtimeURL = APIEndpoint(name: "getRealtimeURL", method: "GET", productionRate: 1)
    public static let initiatePerformanceTest = APIEndpoint(name: "initiatePerformanceTest", method: "POST", productionRate: 1)
    public static let getPerformanceTestResults = APIEndpoint(name: "getPerformanceTestResults", method: "GET", productionRate: 1)

    /// Every endpoint the client calls.
    public static let all: [APIEndpoint] = [
        .getTransactionInfo, .getTransactionHistory, .getAllSubscriptionStatuses, .getAppTransactionInfo,
        .finishTransaction, .sendConsumptionInformation, .sendConsumptionData, .getNotificationHistory,
        .extendSubscriptionRenewalDate, .setAppAccountToken, .lookUpOrderId, .getRefundHistory,
        .extendRenewalDateForAllActiveSubscribers, .getStatusOfSubscriptionRenewalDateExtensions,
        .requestTestNotification, .getTestNotificationStatus,
        .uploadImage, .deleteImage, .getImageList, .uploadMessage, .deleteMessage, .getMessageList,
        .configureDefaultMessage, .deleteDefaultMessage, .getDefaultMessage, .configureRealtimeURL,
        .deleteRealtimeURL, .getRealtimeURL, .initiatePerformanceTest, .getPerformanceTestResults,
    ]
}
