import Foundation
import NIOSSL
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore

extension ServerMetrics {
    /// Creates the series the alerts read at zero, with every label value this version knows,
    /// and records when each certificate the server relies on expires.
    func registerAtStartup(configuration: ServerConfiguration) {
        registerSeries(
            refusalReasons: NotificationAdmission.Refusal.Reason.allCases.map(\.rawValue),
            processingStates: InboxState.allCases.filter { $0 != .pending }.map(\.rawValue),
            jobKinds: JobKind.known.map(\.rawValue))
        for expiry in Self.certificateExpiries(configuration: configuration) {
            certificateExpiry(kind: expiry.kind, name: expiry.name, notAfter: expiry.notAfter)
        }
    }

    /// The server's TLS certificate (the first of its chain), Apple's built-in roots and every
    /// app's configured trusted roots, each once, with when it stops being valid. A file that
    /// cannot be read now is left out: the configuration's checks already named it.
    static func certificateExpiries(configuration: ServerConfiguration) -> [(kind: String, name: String, notAfter: Date)] {
        var found: [(kind: String, name: String, notAfter: Date)] = []
        func add(kind: String, name: String, _ certificate: NIOSSLCertificate?) {
            guard let certificate, !found.contains(where: { $0.kind == kind && $0.name == name }) else { return }
            found.append((kind, name, Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter))))
        }
        if let tls = configuration.tls {
            add(
                kind: "tls", name: URL(fileURLWithPath: tls.certificate).lastPathComponent,
                (try? NIOSSLCertificate.fromPEMFile(tls.certificate))?.first)
        }
        for (name, der) in AppRuntime.builtInRoots {
            add(kind: "apple_root", name: name, try? NIOSSLCertificate(bytes: Array(der), format: .der))
        }
        for app in configuration.apps {
            for path in app.trustedRoots {
                let der = try? AppRuntime.loadCertificate(path: path, app: app.id)
                add(
                    kind: "trusted_root", name: URL(fileURLWithPath: path).lastPathComponent,
                    der.flatMap { try? NIOSSLCertificate(bytes: Array($0), format: .der) })
            }
        }
        return found
    }
}
