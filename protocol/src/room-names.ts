/** Generated room names: a colour and an animal joined by a hyphen, e.g. `teal-otter`. */

export const COLOURS = [
  'amber', 'aqua', 'azure', 'beige', 'black', 'blue', 'bronze', 'brown', 'coral', 'crimson',
  'cyan', 'gold', 'green', 'grey', 'indigo', 'ivory', 'jade', 'lavender', 'lemon', 'lilac',
  'lime', 'magenta', 'maroon', 'mint', 'navy', 'ochre', 'olive', 'orange', 'peach', 'pink',
  'plum', 'purple', 'red', 'rose', 'ruby', 'rust', 'saffron', 'salmon', 'sand', 'scarlet',
  'silver', 'tan', 'teal', 'turquoise', 'violet', 'white', 'yellow',
] as const;

export const ANIMALS = [
  'alpaca', 'badger', 'bat', 'bear', 'beaver', 'bison', 'camel', 'cat', 'cheetah', 'cobra',
  'crab', 'crane', 'crow', 'deer', 'dingo', 'dolphin', 'donkey', 'duck', 'eagle', 'eel',
  'elk', 'falcon', 'ferret', 'finch', 'fox', 'frog', 'gecko', 'goat', 'goose', 'gorilla',
  'hare', 'hawk', 'heron', 'hippo', 'ibis', 'iguana', 'jackal', 'jaguar', 'koala', 'lemur',
  'lion', 'llama', 'lynx', 'marmot', 'mole', 'moose', 'newt', 'octopus', 'otter', 'owl',
  'panda', 'parrot', 'pelican', 'penguin', 'puffin', 'quail', 'rabbit', 'raven', 'seal',
  'shark', 'sloth', 'snail', 'squid', 'stork', 'swan', 'tapir', 'tiger', 'toad', 'turtle',
  'walrus', 'weasel', 'whale', 'wolf', 'wombat', 'yak', 'zebra',
] as const;

function pick<T>(items: readonly T[], random: () => number): T {
  const index = Math.min(items.length - 1, Math.floor(random() * items.length));
  return items[index] as T;
}

/** A new `colour-animal` room name. `random` returns a number in [0, 1), like `Math.random`. */
export function generateRoomName(random: () => number = Math.random): string {
  return `${pick(COLOURS, random)}-${pick(ANIMALS, random)}`;
}
