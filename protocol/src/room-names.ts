/** Generated room names: a colour and an animal joined by a hyphen, e.g. `teal-otter`. */

/**
 * The words of a list written one after another, separated by white space. Calls are marked pure
 * so a bundle that never generates a name (the web client's room page) leaves the lists out.
 */
function words(text: string): readonly string[] {
  return Object.freeze(text.trim().split(/\s+/));
}

/** 238 colours, each the name of a colour. */
export const COLOURS = /* @__PURE__ */ words(`
  amber amethyst apricot aqua aquamarine ash auburn avocado azure banana beige berry biscuit bisque
  black blond blue blush bone brass brick bronze brown buff burgundy butter butterscotch camel
  canary candy caramel cardinal carmine carnation carrot cedar celadon celeste cerise cerulean chalk
  champagne charcoal chartreuse cherry chestnut chili chocolate cinnabar cinnamon citrine citron
  clay clover cobalt cocoa coconut coffee copper coral cornflower cornsilk cotton cream crimson cyan
  daffodil dandelion denim dove ebony ecru eggplant eggshell emerald espresso fawn fern fig flame
  flamingo flax fuchsia garnet ginger gold golden granite grape graphite green grey gunmetal hazel
  heather hemp henna honey honeydew ice indigo iris iron ivory jade jasmine jasper jet jonquil
  juniper khaki kiwi latte lavender lemon lichen lilac lily lime linen liquorice lotus magenta
  mahogany maize malachite mandarin mango maple marble marigold maroon mauve melon midnight mint
  mocha moss mulberry mustard navy nectarine nickel nutmeg oak obsidian ochre olive onyx opal orange
  orchid oyster papaya paprika parchment peach peacock pear pearl pebble peony pepper periwinkle
  persimmon pewter pine pink pistachio platinum plum poppy porcelain primrose pumpkin purple quartz
  quince raisin raspberry red redwood rose rosewood ruby russet rust saffron sage salmon sand
  sandstone sapphire scarlet seafoam sepia shamrock sienna silver sky slate smoke snow spruce steel
  stone straw strawberry sunflower tan tangerine taupe tawny tea teal terracotta thistle toffee
  tomato topaz tulip turmeric turquoise ultramarine umber vanilla verdigris vermilion violet
  viridian walnut wheat white willow wine wisteria yellow zinc
`);

/** 477 animals: 238 × 477 = 113,526 names. */
export const ANIMALS = /* @__PURE__ */ words(`
  aardvark aardwolf addax adder agama agouti albatross alligator alpaca anchovy angelfish anole
  ant anteater antelope ape armadillo asp auk avocet axolotl baboon badger bandicoot barnacle
  barracuda basilisk bass bat beagle bear beaver bee beetle beluga betta bilby binturong bison
  bittern blackbird bluebird bluegill boa boar bobcat bobolink bongo bonobo booby bream buffalo
  bulldog bullfinch bumblebee bunting burbot bushbaby bustard butterfly buzzard caiman capybara
  caracal caribou carp cassowary cat caterpillar catfish cattle chameleon chamois cheetah
  chickadee chicken chimpanzee chinchilla chipmunk chough cicada civet clam clownfish coati cobra
  cockatoo cockle cod collie condor coot cormorant cottontail cougar cow coyote crab crane
  crayfish cricket crocodile crow cuckoo curlew cuttlefish dace dachshund dalmatian damselfly deer
  dhole dingo dipper dodo dog dolphin donkey dormouse dotterel dragonfly drake dromedary duck
  dugong dunlin dunnock eagle earwig echidna eel egret eider eland elephant elk emu ermine falcon
  ferret finch firefly flounder fly flycatcher fossa fox frog fulmar gadwall galago gannet gar
  gazelle gecko gerbil gerenuk gharial gibbon giraffe gnat gnu goat goby godwit goldcrest
  goldfinch goldfish goose gopher gorilla goshawk grasshopper grebe greyhound grouse grunion
  guanaco gudgeon guillemot guineafowl gull guppy haddock hake halibut hamster hare harrier
  hartebeest hawk hedgehog heron herring hippo hoatzin hobby hog hoopoe hornbill hornet horse
  hound hummingbird husky hyena hyrax ibex ibis iguana impala indri jacana jackal jackdaw jaguar
  jay jellyfish jerboa kakapo kangaroo katydid kea kestrel killdeer kingfisher kinkajou kite koala
  koi kookaburra krill kudu labrador ladybird lamb lamprey langur lapwing lark lemming lemur
  leopard limpet linnet lion lionfish lizard llama lobster locust loon loris lovebird lynx
  lyrebird macaque macaw mackerel magpie mallard mamba manatee mandrill manta mantis marlin
  marmoset marmot marten meerkat merlin mink minnow mole mongoose monkey moorhen moose mosquito
  moth mouse mudskipper mule mullet muskox muskrat mussel mynah narwhal nautilus newt nighthawk
  nightingale nightjar numbat nuthatch nyala ocelot octopus okapi olm opossum orangutan orca
  oriole oryx osprey ostrich otter ouzel owl ox paca panda pangolin panther parakeet parrot
  partridge pelican penguin perch peregrine petrel pheasant pig pigeon pika pike pipit piranha
  plaice platypus plover pochard polecat pony poodle porcupine porpoise possum prawn pronghorn
  ptarmigan puffin pug puma python quagga quail quetzal quokka quoll rabbit raccoon rail ram rat
  raven ray razorbill redstart reindeer rhea rhino roadrunner robin rook rooster rorqual ruff
  sable salamander sandpiper sardine sawfish scallop scorpion seahorse seal serval shad shark
  sheep shelduck shrew shrike shrimp siskin skate skink skua skunk skylark sloth slug smelt snail
  snake snapper snipe sparrow spider sponge spoonbill springbok squid squirrel starfish starling
  stingray stoat stork sturgeon sunbird swallow swan swift swordfish tahr takin tamarin tapir
  tarantula tarpon tarsier tench termite tern terrier thrush tiger toad tortoise toucan
  treecreeper trout tuatara tuna turbot turkey turtle uakari urchin vicuna viper vole vulture
  wagtail wallaby walrus warbler warthog wasp waterbuck weasel weevil whale whimbrel whippet
  whiting wildcat wildebeest wolf wolverine wombat woodchuck woodcock woodlark woodpecker wren yak
  yellowhammer zebra zebu zorilla
`);

function pick<T>(items: readonly T[], random: () => number): T {
  const index = Math.min(items.length - 1, Math.floor(random() * items.length));
  return items[index] as T;
}

/** A new `colour-animal` room name. `random` returns a number in [0, 1), like `Math.random`. */
export function generateRoomName(random: () => number = Math.random): string {
  return `${pick(COLOURS, random)}-${pick(ANIMALS, random)}`;
}
