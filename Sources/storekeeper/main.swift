import StorekeeperCLI

await Storekeeper.runFromCommandLine()
