module igraphmcp/bench/gooracle

go 1.19
