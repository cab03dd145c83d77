// swift-tools-version: 6.1
// libFuzzer targets for Storekeeper's parsers. Kept out of the main package because they only
// link with `-sanitize=fuzzer`. See README.md in this folder.
import PackageDescription

let package = Package(
    name: "StorekeeperFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Storekeeper", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver, so a normal `main` can start the fuzzer
        // (SwiftPM renames an executable's `main`, which breaks libFuzzer's own).
        .target(name: "FuzzerDriver"),
        // Starts libFuzzer over a target's callback (the entry point every target shares).
        .target(name: "FuzzerSupport", dependencies: ["FuzzerDriver"]),
        .executableTarget(
            name: "FuzzJWS",
            dependencies: [
                "FuzzerSupport",
                .product(name: "AppStoreVerification", package: "Storekeeper"),
                .product(name: "AppStoreTestSigning", package: "Storekeeper"),
            ]
        ),
        .executableTarget(
            name: "FuzzReceipt",
            dependencies: [
                "FuzzerSupport",
                .product(name: "AppStoreModels", package: "Storekeeper"),
                .product(name: "AppStoreVerification", package: "Storekeeper"),
            ]
        ),
        .executableTarget(
            name: "FuzzServer",
            dependencies: [
                "FuzzerSupport",
                .product(name: "StorekeeperServer", package: "Storekeeper"),
                .product(name: "SubscriptionEngine", package: "Storekeeper"),
                .product(name: "AppStoreTestSigning", package: "Storekeeper"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
