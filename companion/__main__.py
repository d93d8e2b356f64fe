import sys

from companion.entry import main

sys.exit(main())
