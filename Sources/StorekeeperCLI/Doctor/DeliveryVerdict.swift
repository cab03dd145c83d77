import AppStoreModels

/// What Apple's `sendAttemptResult` for the test notification means, and what to do about it:
/// each result Apple records (APPLE.md, `SendAttemptResult`) has a finding code of its own,
/// `notification_` and the result in lower case.
enum DeliveryVerdict {
    /// The finding for the last delivery attempt's result.
    static func finding(_ result: SendAttemptResult, app: String) -> DoctorFinding {
        guard result != .success else {
            return .ok(.notificationDelivered, app: app, "Apple delivered the test notification to the notification URL (SUCCESS)")
        }
        let code = result.isKnown ? DoctorCode(rawValue: "notification_" + result.rawValue.lowercased()) : .notificationNotDelivered
        return .error(
            code, app: app, "Apple could not deliver the test notification to the notification URL: \(result.rawValue) (\(meaning(result)))",
            todo: todo(result))
    }

    /// Apple's words for the result.
    static func meaning(_ result: SendAttemptResult) -> String {
        switch result {
        case .timedOut: "no answer in time"
        case .tlsIssue: "the TLS handshake failed"
        case .circularRedirect: "redirects loop"
        case .noResponse: "nothing answered"
        case .socketIssue: "the connection failed"
        case .unsupportedCharset: "the answer's character set is not supported"
        case .invalidResponse: "the answer is not valid HTTP"
        case .prematureClose: "the connection closed before the answer ended"
        case .unsuccessfulHttpResponseCode: "the answer's status is not 200-206"
        default: "another problem"
        }
    }

    /// One concrete thing to do for the result.
    static func todo(_ result: SendAttemptResult) -> String {
        switch result {
        case .timedOut:
            "Make the notification URL answer within a few seconds: check the server runs and the proxy in front forwards /v1/apps/<app>/notifications to it."
        case .tlsIssue:
            "Serve a certificate of a public certificate authority for the URL's host, its chain leaf first, with TLS 1.2 or later (check with `openssl s_client -connect host:443`)."
        case .circularRedirect:
            "Set the notification URL in App Store Connect to the final https URL (…/v1/apps/<app>/notifications), which answers without redirecting."
        case .noResponse:
            "Make the notification URL's host reachable from the internet: its DNS name, the firewall, port forwarding and a running server."
        case .socketIssue:
            "Open the notification URL's port to the internet and make the server (or its proxy) listen on a public address, not 127.0.0.1."
        case .unsupportedCharset, .invalidResponse:
            "Make sure Storekeeper itself answers the notification URL, not a proxy's or host's error page (send a test with `curl -i -X POST`)."
        case .prematureClose:
            "Raise the proxy's timeouts and body-size limit in front of the server so it does not cut the answer off."
        case .unsuccessfulHttpResponseCode:
            "Read the server's log for the refused notification: the URL must be /v1/apps/<app>/notifications of this app, and its bundleId, appAppleId and environments must match Apple's."
        default:
            "Check the notification URL in App Store Connect (App Information › App Store Server Notifications) and the server's log."
        }
    }
}
