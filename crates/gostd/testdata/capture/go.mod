module tfp-gostd/capture

go 1.26
