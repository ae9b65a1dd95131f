"""What is computed from a store: views, CRAFT's rules, statistics, similarity and evaluation."""
