import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StorekeeperApps
import StorekeeperServer

/// The test apps' RevenueCat SDK keys, and a client that speaks to the SDK routes.
enum RevenueCatSDKFixture {
    static let alphaSDKKey = "appl_alphaPublicSDKKey0123"
    static let betaSDKKey = "appl_betaPublicSDKKey01234"
    static let prefix = "/revenuecat"

    /// The fixture's configuration with SDK keys on alpha and beta (gamma has none).
    static func configure(_ configuration: inout ServerConfiguration) {
        for index in configuration.apps.indices {
            switch configuration.apps[index].id {
            case "alpha": configuration.apps[index].revenueCat = RevenueCatSettings(sdkKeys: [alphaSDKKey])
            case "beta": configuration.apps[index].revenueCat = RevenueCatSettings(sdkKeys: [betaSDKKey])
            default: break
            }
        }
    }

    /// An app user id as the SDK puts it in a path.
    static func escaped(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? id
    }
}

extension TestClientProtocol {
    /// Sends a request as the SDK does (its headers, the SDK key) and returns its status and
    /// JSON body.
    func sdk(
        _ method: HTTPRequest.Method, _ path: String, key: String? = RevenueCatSDKFixture.alphaSDKKey, body: Any? = nil,
        headers extra: [String: String] = [:]
    ) async throws -> (status: Int, json: [String: Any], text: String) {
        var headers = HTTPFields()
        if let key { headers[.authorization] = "Bearer \(key)" }
        headers[.contentType] = "application/json"
        headers[HTTPField.Name("X-Platform")!] = "iOS"
        for (name, value) in extra { headers[HTTPField.Name(name)!] = value }
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let response = try await execute(
            uri: RevenueCatSDKFixture.prefix + path, method: method, headers: headers, body: data.map { ByteBuffer(bytes: $0) })
        let text = String(buffer: response.body)
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return (Int(response.status.code), json, text)
    }
}

/// What RevenueCat's SDK requires of each answer to decode it (purchases-ios:
/// `CustomerInfoResponse`, `OfferingsResponse`, `ErrorResponse`, …, decoded with
/// `convertFromSnakeCase` and ISO 8601 dates with or without fractions). Each check returns
/// the problems found, empty when the SDK would decode the body.
enum RevenueCatSDKShapes {
    static func isDate(_ value: Any?) -> Bool {
        guard let text = value as? String else { return false }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text) != nil || ISO8601DateFormatter().date(from: text) != nil
    }

    static func isOptionalDate(_ value: Any?) -> Bool { value == nil || value is NSNull || isDate(value) }
    static func isOptionalString(_ value: Any?) -> Bool { value == nil || value is NSNull || value is String }

    /// `{"code": Int or numeric String, "message": String?, "attribute_errors": [{key_name, message}]?}`.
    static func error(_ json: [String: Any]) -> [String] {
        var problems: [String] = []
        if !(json["code"] is Int || (json["code"] as? String).flatMap(Int.init) != nil) { problems.append("code is not an integer") }
        if !isOptionalString(json["message"]) { problems.append("message is not a string") }
        if let errors = json["attribute_errors"] {
            guard let list = errors as? [[String: Any]], list.allSatisfy({ $0["key_name"] is String && $0["message"] is String }) else {
                return problems + ["attribute_errors is not [{key_name, message}]"]
            }
        }
        return problems
    }

    /// `CustomerInfoResponse`: `request_date`, and a `subscriber` whose parts decode.
    static func customerInfo(_ json: [String: Any]) -> [String] {
        var problems: [String] = []
        if !isDate(json["request_date"]) { problems.append("request_date") }
        guard let subscriber = json["subscriber"] as? [String: Any] else { return problems + ["subscriber"] }
        if !(subscriber["original_app_user_id"] is String) { problems.append("original_app_user_id") }
        if !isDate(subscriber["first_seen"]) { problems.append("first_seen") }
        if !isOptionalDate(subscriber["original_purchase_date"]) { problems.append("original_purchase_date") }
        if !isOptionalString(subscriber["original_application_version"]) { problems.append("original_application_version") }
        if !isOptionalString(subscriber["management_url"]) { problems.append("management_url") }
        for (id, value) in subscriber["entitlements"] as? [String: Any] ?? [:] {
            guard let entitlement = value as? [String: Any], entitlement["product_identifier"] is String,
                isOptionalDate(entitlement["expires_date"]), isOptionalDate(entitlement["purchase_date"])
            else {
                problems.append("entitlement \(id)")
                continue
            }
        }
        for (id, value) in subscriber["subscriptions"] as? [String: Any] ?? [:] {
            guard let subscription = value as? [String: Any], isDate(subscription["purchase_date"]),
                [
                    "original_purchase_date", "expires_date", "unsubscribe_detected_at", "billing_issues_detected_at", "grace_period_expires_date",
                    "refunded_at", "auto_resume_date",
                ].allSatisfy({ isOptionalDate(subscription[$0]) }),
                subscription["is_sandbox"] == nil || subscription["is_sandbox"] is Bool, isOptionalString(subscription["store_transaction_id"])
            else {
                problems.append("subscription \(id)")
                continue
            }
        }
        for (id, value) in subscriber["non_subscriptions"] as? [String: Any] ?? [:] {
            guard let list = value as? [[String: Any]],
                list.allSatisfy({ isDate($0["purchase_date"]) && $0["is_sandbox"] is Bool && isOptionalString($0["id"]) })
            else {
                problems.append("non_subscription \(id)")
                continue
            }
        }
        if let attributes = subscriber["subscriber_attributes"] {
            guard let map = attributes as? [String: [String: Any]],
                map.values.allSatisfy({ isOptionalString($0["value"]) && $0["updated_at_ms"] is NSNumber })
            else { return problems + ["subscriber_attributes"] }
        }
        return problems
    }

    /// `OfferingsResponse`: offerings with identifier, description and packages; placements
    /// and targeting when present.
    static func offerings(_ json: [String: Any]) -> [String] {
        var problems: [String] = []
        if !isOptionalString(json["current_offering_id"]) { problems.append("current_offering_id") }
        guard let offerings = json["offerings"] as? [[String: Any]] else { return problems + ["offerings"] }
        for offering in offerings {
            guard offering["identifier"] is String, offering["description"] is String,
                let packages = offering["packages"] as? [[String: Any]],
                packages.allSatisfy({ $0["identifier"] is String && $0["platform_product_identifier"] is String }),
                offering["metadata"] == nil || offering["metadata"] is [String: Any]
            else {
                problems.append("offering \(offering["identifier"] ?? "?")")
                continue
            }
        }
        if let placements = json["placements"], !(placements is NSNull) {
            guard let placements = placements as? [String: Any], isOptionalString(placements["fallback_offering_id"]),
                placements["offering_ids_by_placement"] == nil || placements["offering_ids_by_placement"] is [String: Any]
            else { return problems + ["placements"] }
        }
        if let targeting = json["targeting"], !(targeting is NSNull) {
            guard let targeting = targeting as? [String: Any], targeting["revision"] is Int, targeting["rule_id"] is String else {
                return problems + ["targeting"]
            }
        }
        return problems
    }

    /// `GetIntroEligibilityResponse`: `[String: Bool?]`.
    static func introEligibility(_ json: [String: Any]) -> [String] {
        json.compactMap { key, value in value is Bool || value is NSNull ? nil : "eligibility of \(key)" }
    }

    /// `ProductEntitlementMappingResponse`.
    static func productEntitlementMapping(_ json: [String: Any]) -> [String] {
        guard let mapping = json["product_entitlement_mapping"] as? [String: [String: Any]] else { return ["product_entitlement_mapping"] }
        return mapping.compactMap { key, value in
            value["product_identifier"] is String && value["entitlements"] is [String] ? nil : "mapping of \(key)"
        }
    }

    /// `PostOfferResponse`: offers with key_id, offer_id, product_id, then signature data or an error.
    static func offers(_ json: [String: Any]) -> [String] {
        guard let offers = json["offers"] as? [[String: Any]], !offers.isEmpty else { return ["offers"] }
        return offers.compactMap { offer in
            guard offer["key_id"] is String, offer["offer_id"] is String, offer["product_id"] is String else { return "offer ids" }
            if let data = offer["signature_data"] as? [String: Any] {
                let nonce = (data["nonce"] as? String).flatMap(UUID.init(uuidString:))
                return nonce != nil && data["signature"] is String && data["timestamp"] is Int ? nil : "signature_data"
            }
            guard let failure = offer["signature_error"] as? [String: Any] else { return "neither signature_data nor signature_error" }
            return error(failure).first
        }
    }

    /// `VirtualCurrenciesResponse`.
    static func virtualCurrencies(_ json: [String: Any]) -> [String] {
        json["virtual_currencies"] is [String: Any] ? [] : ["virtual_currencies"]
    }

    /// The shape a successful answer to `method path` must have.
    static func success(_ method: String, _ path: String, _ json: [String: Any]) -> [String] {
        let parts = path.split(separator: "/").map(String.init)
        switch (method, parts.last ?? "") {
        case ("GET", "offerings"): return offerings(json)
        case ("POST", "intro_eligibility"): return introEligibility(json)
        case ("GET", "product_entitlement_mapping"): return productEntitlementMapping(json)
        case ("POST", "offers"): return offers(json)
        case ("GET", "virtual_currencies"): return virtualCurrencies(json)
        case ("POST", "eligibility"):
            return json["is_purchase_allowed_by_restore_behavior"] is Bool ? [] : ["is_purchase_allowed_by_restore_behavior"]
        case ("GET", "health"), ("POST", "attributes"): return []
        case ("GET", _) where parts.count == 3 && parts[1] == "subscribers", ("POST", "receipts"), ("POST", "identify"), ("POST", "alias"):
            return customerInfo(json)
        default: return ["no successful answer expected for \(method) \(path)"]
        }
    }
}
