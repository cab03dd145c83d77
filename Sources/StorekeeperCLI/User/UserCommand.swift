import ArgumentParser
import Foundation
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `storekeeper user`: the dashboard's users, kept in the app's database.
public struct UserCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage the dashboard's users (stored in the database with a scrypt password hash).",
        subcommands: [UserAddCommand.self, UserListCommand.self, UserHashCommand.self]
    )

    public init() {}
}

/// `storekeeper user add --config FILE --email E --role viewer|support|admin [--app ID …]`
struct UserAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Create a dashboard user, or replace an existing one's password, role and apps.",
        discussion: """
            The password comes from standard input (its first line) or, on a terminal, from a \
            prompt asked twice; at least 12 characters. Without --app the user sees every app. \
            Prints {"email", "role", "apps", "created"}.
            """
    )

    @OptionGroup var options: ServeOptions

    @Option(help: "The user's email (their sign-in name).")
    var email: String

    @Option(help: "viewer, support or admin.")
    var role: String

    @Option(name: .customLong("app"), help: "An app the user may see (repeat for several; every app when absent).")
    var apps: [String] = []

    func run() async throws {
        let configuration = try options.configuration()
        let email = self.email.trimmingCharacters(in: .whitespaces).lowercased()
        guard email.utf8.count <= 254, let at = email.firstIndex(of: "@"), at != email.startIndex, email.index(after: at) != email.endIndex,
            !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw CLIFailure.usage("--email must be an email address such as ops@example.com") }
        guard let role = DashboardUser.Role(rawValue: role) else { throw CLIFailure.usage("--role must be viewer, support or admin") }
        let known = Set(configuration.apps.map(\.id))
        if let unknown = apps.first(where: { !known.contains($0) }) {
            throw CLIFailure.usage("no app \(unknown.prefix(64)) in the configuration")
        }
        let password = try Self.readPassword()
        do {
            try PasswordHash.check(password)
        } catch {
            throw CLIFailure.usage(error.description)
        }
        let hash = try PasswordHash.make(password)
        let now = Date()
        let user = DashboardUser(
            email: email, passwordHash: hash, role: role, apps: apps.isEmpty ? nil : apps.sorted(), createdAt: now, updatedAt: now)
        let created = try await configuration.withStore(label: "storekeeper.user") { store in try await store.saveDashboardUser(user) }
        try JSONOutput.printObject([
            "email": user.email, "role": role.rawValue, "apps": (user.apps ?? ["*"]) as [String], "created": created,
        ])
    }

    /// The password: the first line of standard input, or a prompt (twice) on a terminal.
    static func readPassword() throws -> String {
        if isatty(STDIN_FILENO) == 1 {
            guard let first = getpass("Password: ").map({ String(cString: $0) }),
                let second = getpass("Password again: ").map({ String(cString: $0) })
            else { throw CLIFailure.usage("no password given") }
            guard first == second else { throw CLIFailure.usage("the passwords differ") }
            return first
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CLIFailure.usage("give the password on standard input (its first line)")
        }
        return line
    }
}

/// `storekeeper user list --config FILE`
struct UserListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print the dashboard's users (never their password hashes).")

    @OptionGroup var options: ServeOptions

    func run() async throws {
        let users = try await options.configuration().withStore(label: "storekeeper.user") { store in try await store.dashboardUsers() }
        try JSONOutput.printObject(
            users.map { user -> [String: Any] in
                ["email": user.email, "role": user.role.rawValue, "apps": user.apps ?? ["*"], "createdAt": Timestamp.string(from: user.createdAt)]
            })
    }
}

/// `storekeeper user hash`: a password's hash for the configuration's `dashboard.initialAdmin`.
struct UserHashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash",
        abstract: "Print the scrypt hash of a password (standard input or a prompt) for dashboard.initialAdmin.passwordHash.")

    func run() async throws {
        let password = try UserAddCommand.readPassword()
        do {
            try PasswordHash.check(password)
        } catch {
            throw CLIFailure.usage(error.description)
        }
        Console.out(Data((try PasswordHash.make(password) + "\n").utf8))
    }
}
