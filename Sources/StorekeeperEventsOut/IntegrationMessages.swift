import Foundation
import StorekeeperStore

/// Customer events in each vendor's own format.
package enum IntegrationMessages {
    /// The default human line of an event type (Slack, Telegram); `{field}` is a field of the data.
    package static let defaultTemplates: [String: String] = [
        EventType.subscriptionStarted.rawValue: "New subscriber {customerId}: {productId} at {price} {currency}",
        EventType.trialStarted.rawValue: "Trial started: {customerId} on {productId}",
        EventType.trialConverted.rawValue: "Trial converted: {customerId} now pays for {productId} ({price} {currency})",
        EventType.trialExpired.rawValue: "Trial expired: {customerId} on {productId}",
        EventType.renewed.rawValue: "Renewed: {customerId} {productId} at {price} {currency}",
        EventType.productChanged.rawValue: "Product changed: {customerId} from {previousProductId} to {productId}",
        EventType.autoRenewDisabled.rawValue: "Auto-renew turned off: {customerId} {productId}",
        EventType.autoRenewEnabled.rawValue: "Auto-renew turned on again: {customerId} {productId}",
        EventType.billingIssue.rawValue: "Billing issue: {customerId} {productId}",
        EventType.gracePeriodStarted.rawValue: "Grace period started: {customerId} {productId}",
        EventType.billingRecovered.rawValue: "Billing recovered: {customerId} {productId}",
        EventType.expired.rawValue: "Expired: {customerId} {productId} ({expirationReason})",
        EventType.refunded.rawValue: "Refunded: {customerId} {productId} {price} {currency}",
        EventType.revoked.rawValue: "Revoked: {customerId} {productId}",
        EventType.extended.rawValue: "Renewal date extended: {customerId} {productId} until {expiresDate}",
        EventType.priceIncrease.rawValue: "Price increase {priceIncreaseConsent}: {customerId} {productId}",
        EventType.oneTimePurchase.rawValue: "Purchase: {customerId} {productId} at {price} {currency}",
        EventType.entitlementGranted.rawValue: "Granted: {productId} to {customerId}",
        EventType.entitlementRevoked.rawValue: "Grant revoked: {productId} of {customerId}",
        EventType.consumptionRequested.rawValue: "Refund requested: Apple asks about {customerId}'s {productId} ({transactionId})",
        EventType.problemOpened.rawValue: "Problem ({problemKind}): {summary}",
        EventType.problemResolved.rawValue: "Resolved ({problemKind}): {summary}",
        EventType.experimentEnrolled.rawValue: "Experiment {experimentId}: {customerId} joined variant {variant}",
        EventType.retentionMessageShown.rawValue: "{customerId} opened the cancellation sheet of {productId}: message shown",
        EventType.retentionAlternateProductShown.rawValue:
            "{customerId} opened the cancellation sheet of {productId}: offered to switch to {alternateProductId}",
        EventType.retentionOfferShown.rawValue: "{customerId} opened the cancellation sheet of {productId}: offered {offerIdentifier}",
        EventType.retentionDefaultShown.rawValue: "{customerId} opened the cancellation sheet of {productId}: Apple's default message shown",
        EventType.testEvent.rawValue: "Test event from Storekeeper ({appId})",
    ]

    /// The event's line: the destination's template for its type, else the default.
    package static func line(type: String, data: EventData, templates: [String: String]?) -> String {
        let fields = data.fields
        let template = templates?[type] ?? defaultTemplates[type] ?? "{type}: {customerId} {productId}"
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            let name = String(rest[rest.index(after: open)..<close])
            result += fields[name].map(text) ?? "–"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    package static func text(_ value: Any) -> String {
        switch value {
        case let string as String: string
        case let number as NSNumber: number.stringValue
        case let list as [String]: list.joined(separator: ", ")
        default: "\(value)"
        }
    }

    /// Slack's escaping for mrkdwn and plain text: `&`, `<`, `>`.
    package static func slackEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// Telegram's HTML escaping: `&`, `<`, `>`, `"`.
    package static func telegramEscaped(_ text: String) -> String {
        slackEscaped(text).replacingOccurrences(of: "\"", with: "&quot;")
    }

    package static func slack(data: EventData, type: String, templates: [String: String]?) -> Data {
        let line = slackEscaped(line(type: type, data: data, templates: templates))
        let context = slackEscaped("\(type) · \(data.appId) · \(data.environment ?? "–")")
        let message: [String: Any] = [
            "text": line,
            "blocks": [
                ["type": "section", "text": ["type": "mrkdwn", "text": line]],
                ["type": "context", "elements": [["type": "mrkdwn", "text": context]]],
            ],
        ]
        return json(message)
    }

    package static func telegram(data: EventData, type: String, chatId: String, templates: [String: String]?) -> Data {
        let text = "<b>\(telegramEscaped(type))</b>\n" + telegramEscaped(line(type: type, data: data, templates: templates))
        return json(["chat_id": chatId, "text": text, "parse_mode": "HTML", "disable_web_page_preview": true])
    }

    /// Whether an event type carries revenue (Amplitude's revenue fields; refunds negative).
    package static func revenueSign(of type: String) -> Decimal? {
        switch EventType(rawValue: type) {
        case .subscriptionStarted, .trialConverted, .renewed, .oneTimePurchase, .productChanged: 1
        case .refunded: -1
        default: nil
        }
    }

    /// The event for Amplitude's HTTP V2 API: the customer is the `user_id` (the chain's original
    /// transaction id when no customer is known); an event of no customer at all (an alert the
    /// integration asked for) is the app's own, `device_id` `storekeeper-<appId>` — Amplitude
    /// refuses an event with neither.
    package static func amplitudeEvent(data: EventData, type: String, time: Date) -> [String: Any] {
        var event: [String: Any] = [
            "event_type": type, "time": Int64((time.timeIntervalSince1970 * 1000).rounded()), "insert_id": data.id,
            "event_properties": data.fields.filter { $0.key != "aliases" },
        ]
        if let user = data.customerId ?? data.originalTransactionId {
            event["user_id"] = user
        } else {
            event["device_id"] = "storekeeper-" + data.appId
        }
        if let sign = revenueSign(of: type), let price = data.priceInReportingCurrency ?? data.price {
            let amount = sign * price
            event["price"] = NSDecimalNumber(decimal: amount)
            event["quantity"] = 1
            event["revenue"] = NSDecimalNumber(decimal: amount)
            event["productId"] = data.productId
            event["revenueType"] = type
        }
        return event
    }

    /// The events an Amplitude 400 names as refused, by their index in the batch, with why:
    /// `events_with_invalid_fields` and `events_with_missing_fields` map field names to indices.
    /// Amplitude imported none of the batch; the others go again without these.
    package static func amplitudeRefusals(_ body: Data) -> [Int: String] {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [:] }
        var refused: [Int: String] = [:]
        for (key, word) in [("events_with_invalid_fields", "invalid"), ("events_with_missing_fields", "missing")] {
            for (field, indices) in (object[key] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
                for index in indices as? [Int] ?? [] {
                    refused[index] = [refused[index], "\(word) \(field)"].compactMap { $0 }.joined(separator: ", ")
                }
            }
        }
        return refused
    }

    package static func mixpanelEvent(data: EventData, type: String, time: Date) -> [String: Any] {
        var properties = data.fields.filter { !["aliases", "id"].contains($0.key) }
        properties["time"] = Int64((time.timeIntervalSince1970 * 1000).rounded())
        properties["distinct_id"] = data.customerId ?? data.originalTransactionId ?? ""
        properties["$insert_id"] = String(data.id.prefix(36))
        return ["event": type, "properties": properties]
    }

    package static func json(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }
}
