from kubectl_gpu.cli.app import main

main()
