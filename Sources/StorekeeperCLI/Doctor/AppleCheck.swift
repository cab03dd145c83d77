import AppStoreJOSE
import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StorekeeperApps

/// One app's round trip through Apple (or the simulator its configuration names): the key is
/// accepted, a test notification is sent and delivered, it names the configured app, the
/// running server received it, and the products Apple mentions are in the catalog.
struct AppleCheck: Sendable {
    let app: AppConfiguration
    let settings: AppStoreAPISettings
    let key: InAppPurchaseKey
    let doctor: Doctor

    /// The checks in order; each later one runs only when the earlier ones leave it something
    /// to check.
    func run() async -> [DoctorFinding] {
        let environment = AppStoreEnvironment(rawValue: settings.environment)
        let baseURL: URL?
        if let text = settings.baseURL {
            guard let url = URL(string: text), url.scheme != nil else {
                return [
                    .error(
                        .environmentUnknown, app: app.id, "appStoreServerAPI.baseURL \(text) is not a URL",
                        todo: "Remove baseURL to reach Apple, or set it to the simulator's http://host:port.")
                ]
            }
            baseURL = url
        } else {
            baseURL = nil
        }
        let configuration: AppStoreServerAPIClient.Configuration
        do {
            configuration = try AppStoreServerAPIClient.Configuration(
                key: key, issuerId: settings.issuerId, bundleId: app.bundleId, environment: environment, baseURL: baseURL,
                retryPolicy: RetryPolicy(maximumAttempts: 1))
        } catch {
            return [
                .error(
                    .environmentUnknown, app: app.id, "appStoreServerAPI.environment \(settings.environment) has no Apple host",
                    todo: "Set appStoreServerAPI.environment to Sandbox or Production (or add the simulator's baseURL).")
            ]
        }
        let client = AppStoreServerAPIClient(configuration: configuration, transport: doctor.transport, rateBudget: RateBudget())
        var findings: [DoctorFinding] = []
        let token: String
        do {
            let answer = try await client.requestTestNotification()
            token = answer.testNotificationToken ?? ""
            findings.append(.ok(.apiKeyAccepted, app: app.id, "Apple accepted key \(settings.keyId) of issuer \(settings.issuerId)"))
        } catch {
            findings += apiFailure(error, host: configuration.baseURL)
            findings += await skewFindings(of: configuration.baseURL, name: "Apple")
            // Say what could not be told, so a clean run after the fix is not mistaken for the
            // only remaining problem.
            findings.append(
                .info(
                    .appleChecksSkipped, app: app.id,
                    "without Apple's answer the notification URL, the bundle id and appAppleId Apple signs, and the products were not checked",
                    todo: "Fix the finding above and run doctor again."))
            return findings
        }
        findings += await skewFindings(of: configuration.baseURL, name: "Apple")
        let (status, deliveryFindings) = await delivery(client: client, token: token)
        findings += deliveryFindings
        guard let status else { return findings }
        let payload = await identifierFindings(status.signedPayload)
        findings += payload.findings
        if let server = doctor.server {
            let check = ServerCheck(app: app, server: server, doctor: doctor)
            if status.sendAttempts?.last?.sendAttemptResult == .success, let uuid = payload.notificationUUID {
                findings += await check.receivedTestNotification(uuid: uuid)
            }
            findings += await check.productFindings(client: client, verifier: verifier(environment: environment))
        } else {
            findings.append(
                .info(
                    .productsUnverifiable, app: app.id, "without --server the products Apple knows cannot be compared with the catalog",
                    todo: "Run again with --server URL of the running server."))
        }
        return findings
    }

    /// Waits for Apple's first delivery attempt of the test notification and judges it.
    func delivery(client: AppStoreServerAPIClient, token: String) async -> (CheckTestNotificationResponse?, [DoctorFinding]) {
        let clock = ContinuousClock()
        let deadline = clock.now + doctor.deliveryWait
        var last: CheckTestNotificationResponse?
        // Apple takes a moment to try; asking at once would spend the sandbox's budget of about
        // one status request in ten seconds on an answer without attempts.
        while true {
            try? await Task.sleep(for: doctor.pollInterval)
            do {
                let answer = try await client.getTestNotificationStatus(testNotificationToken: token)
                last = answer
                if let result = answer.sendAttempts?.last?.sendAttemptResult {
                    return (answer, [DeliveryVerdict.finding(result, app: app.id)])
                }
            } catch let error as AppStoreServerAPIError where error.apiErrorCode == .testNotificationNotFound {
                // Apple has not tried yet.
            } catch {
                return (nil, apiFailure(error, host: client.configuration.baseURL))
            }
            guard clock.now + doctor.pollInterval < deadline else { break }
        }
        return (
            last,
            [
                .warning(
                    .notificationStatusPending, app: app.id,
                    "Apple had not tried to deliver the test notification after \(doctor.deliveryWait.components.seconds) s",
                    todo:
                        "Run again with a longer --wait; if it stays pending, set the notification URL in App Store Connect (App Information › App Store Server Notifications)."
                )
            ]
        )
    }

    /// What Apple's signed test notification says about the app, compared with the configuration.
    func identifierFindings(_ signedPayload: String?) async -> (notificationUUID: String?, findings: [DoctorFinding]) {
        guard let signedPayload, let jws = CompactJWS(signedPayload),
            let claimed = try? JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: Data(jws.payload))
        else {
            return (nil, [unverifiable("Apple's answer holds no readable signed test notification")])
        }
        let bundleId = claimed.data?.bundleId ?? ""
        let appAppleId = claimed.data?.appAppleId
        let environment = claimed.data?.environment ?? AppStoreEnvironment(rawValue: settings.environment)
        let verified: VerificationResult<ResponseBodyV2DecodedPayload>
        do {
            let verifier = try SignedDataVerifier(rootCertificates: roots(), bundleId: bundleId, appAppleId: appAppleId, environment: environment)
            verified = await verifier.verifyAndDecodeNotification(signedPayload, now: doctor.now())
        } catch {
            return (claimed.notificationUUID, [unverifiable("the test notification cannot be verified: \(error)")])
        }
        if let failure = verified.failure {
            return (claimed.notificationUUID, [unverifiable("the test notification's signature does not verify: \(failure)")])
        }
        var findings: [DoctorFinding] = []
        if bundleId != app.bundleId {
            findings.append(
                .error(
                    .bundleIdMismatch, app: app.id, "Apple's test notification is for bundle id \(bundleId); the configuration says \(app.bundleId)",
                    todo: "Set the app's bundleId to \(bundleId), or use the In-App Purchase key of the team that owns \(app.bundleId)."))
        }
        if let appAppleId, appAppleId != app.appAppleId {
            let configured = app.appAppleId.map(String.init) ?? "none"
            findings.append(
                .error(
                    .appAppleIdMismatch, app: app.id,
                    "Apple's test notification names appAppleId \(appAppleId); the configuration says \(configured)",
                    todo: "Set appAppleId to \(appAppleId) (App Store Connect › App Information › Apple ID)."))
        }
        if !app.environments.contains(environment) {
            findings.append(
                .error(
                    .environmentMismatch, app: app.id,
                    "Apple's test notification is from \(environment.rawValue), which the app does not accept (\(app.environments.map(\.rawValue).joined(separator: ", ")))",
                    todo: "Add \(environment.rawValue) to the app's environments, or point appStoreServerAPI.environment at the one the app serves."))
        }
        if findings.isEmpty {
            findings.append(
                .ok(
                    .identifiersMatch, app: app.id,
                    "Apple's signed test notification names bundle \(bundleId) in \(environment.rawValue), as configured"))
        }
        return (claimed.notificationUUID, findings)
    }

    /// A failed API call as a finding: refused credentials, another of Apple's errors, or no answer.
    func apiFailure(_ error: any Error, host: URL) -> [DoctorFinding] {
        guard let error = error as? AppStoreServerAPIError else {
            return [
                .error(
                    .appleAPIError, app: app.id, "the call to \(host.absoluteString) failed: \(error)",
                    todo: "Run again; if it persists, check the configuration's appStoreServerAPI.")
            ]
        }
        if error.httpStatus == 401 {
            return [
                .error(
                    .apiKeyRejected, app: app.id,
                    "Apple refused the API token (HTTP 401): the .p8 does not match key id \(settings.keyId) (or issuer \(settings.issuerId)), or bundle id \(app.bundleId) is not the team's",
                    todo:
                        "Download the In-App Purchase key again from App Store Connect (Users and Access › Integrations › In-App Purchase) and set keyId, issuerId and privateKeyPath to match it."
                )
            ]
        }
        if error.code == .transport {
            return [
                .error(
                    .appleUnreachable, app: app.id, "no answer from \(host.absoluteString): \(error.message)",
                    todo:
                        "Let this machine reach \(host.host ?? host.absoluteString) on port 443 (firewall, proxy, DNS), or start the simulator the baseURL names."
                )
            ]
        }
        let code = error.apiErrorCode.map { " (errorCode \($0.rawValue))" } ?? ""
        return [
            .error(
                .appleAPIError, app: app.id, "Apple answered HTTP \(error.httpStatus.map(String.init) ?? "?")\(code): \(error.message)",
                todo: error.isRetryable
                    ? "Run again in a minute; Apple's answer says the call may succeed later."
                    : "Look up the errorCode in Apple's App Store Server API documentation and fix the setting it names.")
        ]
    }

    /// The local clock against the `Date` of the last answer from `url`'s host.
    func skewFindings(of url: URL, name: String) async -> [DoctorFinding] {
        await doctor.skewFindings(of: url, name: name, app: app.id)
    }

    /// Apple's root and the app's configured test roots, as the server trusts them.
    func roots() throws -> [Data] {
        try [AppleRootCertificates.appleRootCAG3] + app.trustedRoots.map { try AppRuntime.loadCertificate(path: $0, app: app.id) }
    }

    /// A verifier of the app's signed data in `environment`, as the server builds it.
    func verifier(environment: AppStoreEnvironment) -> SignedDataVerifier? {
        try? SignedDataVerifier(rootCertificates: roots(), bundleId: app.bundleId, appAppleId: app.appAppleId, environment: environment)
    }

    private func unverifiable(_ message: String) -> DoctorFinding {
        .error(
            .testNotificationUnverifiable, app: app.id, message,
            todo:
                "Check that appStoreServerAPI.baseURL (if any) is the App Store simulator whose root is in trustedRoots, or remove it to reach Apple."
        )
    }
}

extension Doctor {
    /// The local clock against the `Date` header of the last answer from `url`'s host.
    func skewFindings(of url: URL, name: String, app: String?) async -> [DoctorFinding] {
        guard let remote = await transport.dates.date(of: url) else { return [] }
        let skew = now().timeIntervalSince(remote)
        guard abs(skew) > maximumSkew else { return [] }
        let direction = skew > 0 ? "ahead of" : "behind"
        return [
            .warning(
                .clockSkew, app: app, "this machine's clock is \(Int(abs(skew).rounded())) s \(direction) \(name)'s (\(url.host ?? ""))",
                todo:
                    "Synchronize the clock with NTP (`timedatectl set-ntp true` or chrony); API tokens and signed dates fail beyond a minute's skew.")
        ]
    }
}
