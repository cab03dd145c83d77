import AppStoreServerAPI
import Foundation
import StorekeeperApps

/// The checks of `storekeeper doctor` over one configuration: what can be told from the files
/// alone, then what Apple (or the App Store simulator the configuration names) and, with a
/// server URL, the running server answer.
///
/// Each check returns findings rather than throwing: one broken app or file never hides what the
/// other checks would say.
struct Doctor: Sendable {
    /// The configuration as read; ``configurationProblem`` says why the server would refuse it.
    var configuration: ServerConfiguration
    /// What `validate()` refused, if anything.
    var configurationProblem: String?
    /// The configuration file, when there is one (its permissions are checked).
    var configurationFile: String?
    /// The running server to check (`--server`).
    var server: URL?
    /// How long to wait for Apple to report the test notification's delivery.
    var deliveryWait: Duration
    /// How long to wait before each Get Test Notification Status (the rate budget spaces them
    /// further: the sandbox allows one in ten seconds).
    var pollInterval: Duration
    /// The largest clock difference tolerated before a warning, in seconds.
    var maximumSkew: TimeInterval
    /// The local clock (the command passes the wall clock, shifted by the hidden test offset).
    var now: @Sendable () -> Date
    /// How requests to Apple and the server are sent, each answer's `Date` noted.
    var transport: DateRecordingTransport

    /// Every check, in order.
    func run() async -> [DoctorFinding] {
        var findings = configurationFindings()
        findings += fileFindings()
        findings += tlsFindings()
        for app in configuration.apps {
            findings += await appFindings(app)
        }
        return findings
    }

    /// One app's checks: its key, then (when the key is usable) Apple and the server.
    func appFindings(_ app: AppConfiguration) async -> [DoctorFinding] {
        guard let settings = app.appStoreServerAPI else {
            return [
                .info(
                    .noAPICredentials, app: app.id, "no App Store Server API credentials (appStoreServerAPI): nothing is asked of Apple",
                    todo: "Add appStoreServerAPI (issuerId, keyId, privateKeyPath, environment) to check the key and the notification URL.")
            ]
        }
        let (key, keyFindings) = readKey(settings, app: app.id)
        guard let key else { return keyFindings }
        var findings = keyFindings
        let check = AppleCheck(app: app, settings: settings, key: key, doctor: self)
        findings += await check.run()
        return findings
    }

    /// What the configuration's own validation and its apps' declarations say.
    func configurationFindings() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        if let configurationProblem {
            findings.append(
                .error(
                    .configurationInvalid, app: nil, "the server would refuse this configuration: \(configurationProblem)",
                    todo: "Fix the setting named in the message; `storekeeper serve` will not start until then."))
        }
        if configuration.apps.isEmpty {
            findings.append(
                .error(.noApps, app: nil, "the configuration declares no app", todo: "Add an app (id, bundleId, environments, apiKeys) under apps."))
        }
        var byBundle: [String: [String]] = [:]
        for app in configuration.apps {
            for environment in app.environments { byBundle["\(app.bundleId) \(environment.rawValue)", default: []].append(app.id) }
            if app.environments.contains(.production), app.appAppleId == nil {
                findings.append(
                    .error(
                        .productionWithoutAppAppleId, app: app.id, "the app accepts Production but has no appAppleId",
                        todo:
                            "Set appAppleId to the app's Apple ID (App Store Connect › App Information); Apple requires it to verify production data."
                    ))
            }
        }
        for (key, apps) in byBundle.sorted(by: { $0.key < $1.key }) where apps.count > 1 {
            findings.append(
                .error(
                    .duplicateBundleId, app: apps.joined(separator: ", "),
                    "apps \(apps.joined(separator: " and ")) share bundle id and environment \(key): a notification can reach only one of them",
                    todo: "Keep one app per bundle id and environment; remove the environment from all but one of \(apps.joined(separator: ", "))."))
        }
        return findings
    }
}
